package catalog

import (
	"encoding/binary"
	"math"
	"testing"
)

// wavFile builds a WAV with the given fmt fields; extra chunks go between
// fmt and data, and dataSize overrides the data chunk's declared size.
func wavFile(format, channels uint16, rate uint32, bits uint16, frames int, extra []byte, dataSize *uint32) []byte {
	le := binary.LittleEndian
	align := channels * ((bits + 7) / 8)
	fmtBody := make([]byte, 16)
	le.PutUint16(fmtBody[0:], format)
	le.PutUint16(fmtBody[2:], channels)
	le.PutUint32(fmtBody[4:], rate)
	le.PutUint32(fmtBody[8:], rate*uint32(align))
	le.PutUint16(fmtBody[12:], align)
	le.PutUint16(fmtBody[14:], bits)
	if format == formatExtensible {
		ext := make([]byte, 24)
		le.PutUint16(ext[0:], 22)
		le.PutUint16(ext[8:], formatPCM) // sub-format GUID starts with the tag
		fmtBody = append(fmtBody, ext...)
	}
	chunk := func(id string, body []byte) []byte {
		c := append([]byte(id), le.AppendUint32(nil, uint32(len(body)))...)
		c = append(c, body...)
		if len(body)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	data := chunk("data", make([]byte, frames*int(align)))
	if dataSize != nil {
		le.PutUint32(data[4:], *dataSize)
	}
	body := append([]byte("WAVE"), chunk("fmt ", fmtBody)...)
	body = append(body, extra...)
	body = append(body, data...)
	return append(append([]byte("RIFF"), le.AppendUint32(nil, uint32(len(body)))...), body...)
}

func TestWAVDuration(t *testing.T) {
	list := append([]byte("LIST"), 3, 0, 0, 0, 'a', 'b', 'c', 0) // odd size, padded
	placeholder := uint32(0xFFFFFFFF)
	tests := []struct {
		name string
		b    []byte
		want float64
	}{
		{"mono 16k 1s", wavFile(formatPCM, 1, 16000, 16, 16000, nil, nil), 1},
		{"empty", wavFile(formatPCM, 1, 16000, 16, 0, nil, nil), 0},
		{"stereo 44.1k 24-bit", wavFile(formatPCM, 2, 44100, 24, 66150, nil, nil), 1.5},
		{"mono 8k 8-bit", wavFile(formatPCM, 1, 8000, 8, 20000, nil, nil), 2.5},
		{"float 48k", wavFile(formatFloat, 1, 48000, 32, 24000, nil, nil), 0.5},
		{"extensible 6ch", wavFile(formatExtensible, 6, 48000, 16, 96000, nil, nil), 2},
		{"chunk before data", wavFile(formatPCM, 1, 16000, 16, 8000, list, nil), 0.5},
		{"streaming size placeholder", wavFile(formatPCM, 2, 16000, 16, 4000, nil, &placeholder), 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WAVDuration(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("duration %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWAVDurationErrors(t *testing.T) {
	good := wavFile(formatPCM, 1, 16000, 16, 100, nil, nil)
	mutate := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"png", []byte("\x89PNG\r\n\x1a\n0000000000")},
		{"RIFF but AVI", mutate(func(b []byte) []byte { copy(b[8:], "AVI "); return b })},
		{"mp3 in wav", mutate(func(b []byte) []byte { b[20] = 0x55; return b })},
		{"zero rate", mutate(func(b []byte) []byte { copy(b[24:28], []byte{0, 0, 0, 0}); return b })},
		{"zero block align", mutate(func(b []byte) []byte { b[32], b[33] = 0, 0; return b })},
		{"short fmt", mutate(func(b []byte) []byte { b[16] = 14; return b })},
		{"no data chunk", good[:36]},
		{"data before fmt", mutate(func(b []byte) []byte { copy(b[12:], "JUNK"); return b })},
		{"truncated fmt", good[:30]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d, err := WAVDuration(tt.b); err == nil {
				t.Errorf("no error (duration %v)", d)
			}
		})
	}
}

func FuzzWAVDuration(f *testing.F) {
	f.Add(wavFile(formatPCM, 1, 16000, 16, 100, nil, nil))
	f.Add(wavFile(formatExtensible, 2, 44100, 24, 10, []byte("LIST\x01\x00\x00\x00x\x00"), nil))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := WAVDuration(b)
		if err == nil && (d < 0 || math.IsInf(d, 0) || math.IsNaN(d)) {
			t.Errorf("duration %v", d)
		}
	})
}
