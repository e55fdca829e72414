package media

import (
	"encoding/binary"
	"math"
)

// sampleRate is the rate of every WAV this package writes.
const sampleRate = 16000

// encodeWAV writes mono 16-bit PCM. Samples must lie in [-1, 1]; the
// generators guarantee it, so there is no clipping here to hide a bug.
func encodeWAV(samples []float64) []byte {
	const header = 44
	data := 2 * len(samples)
	b := make([]byte, header+data)
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], uint32(header-8+data))
	copy(b[8:], "WAVEfmt ")
	le.PutUint32(b[16:], 16) // fmt chunk size
	le.PutUint16(b[20:], 1)  // PCM
	le.PutUint16(b[22:], 1)  // channels
	le.PutUint32(b[24:], sampleRate)
	le.PutUint32(b[28:], sampleRate*2) // byte rate
	le.PutUint16(b[32:], 2)            // block align
	le.PutUint16(b[34:], 16)           // bits per sample
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(data))
	for i, s := range samples {
		le.PutUint16(b[header+2*i:], uint16(int16(math.Round(s*math.MaxInt16))))
	}
	return b
}
