package preview

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

// photo4K is a 3840x2160 opaque image with gradients and noise, so that
// scaling cannot take shortcuts on flat colour; it is an *image.RGBA, which
// is what image/png returns for an opaque truecolour PNG.
func photo4K() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 3840, 2160))
	seed := uint32(7)
	for y := range 2160 {
		row := img.Pix[y*img.Stride:]
		for x := range 3840 {
			seed = seed*1664525 + 1013904223
			n := uint8(seed >> 28)
			row[4*x] = uint8(x/15) + n
			row[4*x+1] = uint8(y/9) + n
			row[4*x+2] = uint8((x+y)/24) + n
			row[4*x+3] = 0xff
		}
	}
	return img
}

// BenchmarkHalfBlock4K is the figure: a decoded 4K image scaled into
// 60x30 cells and rendered (target under 5 ms). Decoding is excluded.
func BenchmarkHalfBlock4K(b *testing.B) {
	rgba := photo4K()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	ycbcr, err := jpeg.Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		img  image.Image
	}{{"png-rgba", rgba}, {"jpeg-ycbcr", ycbcr}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if s := FromImage(bc.img, 60, 30).HalfBlock(); len(s) == 0 {
					b.Fatal("empty preview")
				}
			}
		})
	}
}

// BenchmarkLoad includes reading and decoding a 4K PNG from disk, for
// information: this is the time the preview command takes on a cache miss.
func BenchmarkLoad(b *testing.B) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, photo4K()); err != nil {
		b.Fatal(err)
	}
	path := writeFile(b, "4k.png", buf.Bytes())
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := load(path, 60, 30, false); err != nil {
			b.Fatal(err)
		}
	}
}
