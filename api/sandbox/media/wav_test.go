package media

import (
	"encoding/binary"
	"math"
	"testing"
)

// samples decodes a WAV written by this package, checking the header says
// what the package doc promises.
func samples(t *testing.T, b []byte) []int16 {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV header: % x", b[:min(len(b), 44)])
	}
	if format, ch, rate, bits := le.Uint16(b[20:]), le.Uint16(b[22:]), le.Uint32(b[24:]), le.Uint16(b[34:]); format != 1 || ch != 1 || rate != sampleRate || bits != 16 {
		t.Fatalf("format %d, %d channels, %d Hz, %d bits; want PCM mono %d Hz 16-bit", format, ch, rate, bits, sampleRate)
	}
	if riff := le.Uint32(b[4:]); int(riff) != len(b)-8 {
		t.Fatalf("RIFF size %d, file is %d bytes", riff, len(b))
	}
	data := b[44:]
	if n := le.Uint32(b[40:]); int(n) != len(data) {
		t.Fatalf("data size %d, have %d bytes", n, len(data))
	}
	out := make([]int16, len(data)/2)
	for i := range out {
		out[i] = int16(le.Uint16(data[2*i:]))
	}
	return out
}

// rms of s[from:to) seconds, as a fraction of full scale.
func rms(s []int16, from, to float64) float64 {
	lo := max(0, int(math.Round(from*sampleRate)))
	hi := min(len(s), int(math.Round(to*sampleRate)))
	if hi <= lo {
		return 0
	}
	sum := 0.0
	for _, v := range s[lo:hi] {
		x := float64(v) / math.MaxInt16
		sum += x * x
	}
	return math.Sqrt(sum / float64(hi-lo))
}
