package preview

import (
	"encoding/binary"
	"image"
	"slices"
	"testing"
)

// encodeWebP writes img as a lossless WebP (VP8L) using only "simple" prefix
// codes, which hold one or two symbols each: enough for test images whose
// every channel takes at most two values. The standard library and x/image
// have no WebP encoder, and a generated file keeps the test free of fixtures.
func encodeWebP(t *testing.T, img *image.NRGBA) []byte {
	t.Helper()
	b := img.Rect
	var w bitWriter
	w.write(0x2f, 8) // VP8L signature
	w.write(uint64(b.Dx()-1), 14)
	w.write(uint64(b.Dy()-1), 14)
	w.write(0, 1) // alpha hint
	w.write(0, 3) // version
	w.write(0, 1) // no transform
	w.write(0, 1) // no colour cache
	w.write(0, 1) // no meta prefix codes

	// The decoder reads pixels as green, red, blue, alpha, in this order of
	// channels within a pixel; the prefix codes come in the order green,
	// red, blue, alpha, distance.
	order := []int{1, 0, 2, 3}
	symbols := make([][]uint8, 4)
	for _, ch := range order {
		var vals []uint8
		for i := ch; i < len(img.Pix); i += 4 {
			if !slices.Contains(vals, img.Pix[i]) {
				vals = append(vals, img.Pix[i])
			}
		}
		if len(vals) > 2 {
			t.Fatalf("channel %d has %d values; simple codes hold two", ch, len(vals))
		}
		slices.Sort(vals)
		symbols[ch] = vals
		w.simpleCode(vals)
	}
	w.simpleCode([]uint8{0}) // distance: unused
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.Pix[img.PixOffset(x, y):]
			for _, ch := range order {
				if vals := symbols[ch]; len(vals) == 2 {
					w.write(uint64(b2i(p[ch] == vals[1])), 1)
				}
			}
		}
	}
	data := w.bytes()
	if len(data)%2 == 1 {
		data = append(data, 0)
	}
	var out []byte
	out = append(out, "RIFF"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(4+8+len(data)))
	out = append(out, "WEBPVP8L"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(w.bytes())))
	return append(out, data...)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bitWriter packs bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *bitWriter) write(v uint64, bits uint) {
	w.acc |= v << w.n
	w.n += bits
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// simpleCode writes a prefix code of one or two 8-bit symbols; the smaller
// symbol gets the code 0.
func (w *bitWriter) simpleCode(vals []uint8) {
	w.write(1, 1) // simple
	w.write(uint64(len(vals)-1), 1)
	w.write(1, 1) // 8-bit first symbol
	for _, v := range vals {
		w.write(uint64(v), 8)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.n > 0 {
		return append(slices.Clone(w.buf), byte(w.acc))
	}
	return w.buf
}
