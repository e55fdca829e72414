package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

const (
	// gradientColours palette entries hold the gradient; the last two are
	// reserved for drawing on top of it.
	gradientColours = 254
	inkIndex        = 254
	shadowIndex     = 255

	// Limits far above any service resolution (4K at 4:1 is 8640x2160) that
	// stop a bad caller from exhausting memory.
	maxSide   = 16384
	maxPixels = 1 << 26

	coverShortSide = 360
)

// pngEncoder reuses the compressor's large internal state across calls;
// allocating it afresh costs about a megabyte per image.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &encoderPool{}}

type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}

func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

// PNG returns a w x h PNG of a gradient chosen by seed, with label written
// across its middle (non-ASCII characters show as a replacement mark, and a
// label too long for the width is cut with "...").
func PNG(w, h int, seed int64, label string) ([]byte, error) {
	img, err := pattern(w, h, seed)
	if err != nil {
		return nil, err
	}
	drawLabel(img, label)
	var buf bytes.Buffer
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// JPEGCover returns a cover image for a w x h video: the same kind of gradient
// with a play mark, scaled down (never up) so that its shorter side is at most
// 360 pixels, keeping the video's aspect ratio.
func JPEGCover(w, h int, seed int64) ([]byte, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	if short := min(w, h); short > coverShortSide {
		f := float64(coverShortSide) / float64(short)
		w, h = max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
	}
	img, err := pattern(w, h, seed)
	if err != nil {
		return nil, err
	}
	drawPlayMark(img)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

func checkSize(w, h int) error {
	if w <= 0 || h <= 0 || w > maxSide || h > maxSide || w*h > maxPixels {
		return fmt.Errorf("image size %dx%d: each side must be 1 to %d pixels and the area at most %d pixels", w, h, maxSide, maxPixels)
	}
	return nil
}

// pattern paints the gradient. The colour index is a(x) + b(y), a diagonal
// ramp plus one soft wave per axis, so every pixel costs one byte addition
// and the 2D image needs only two 1D tables of trigonometry.
func pattern(w, h int, seed int64) (*image.Paletted, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	r := rng(seed)
	img := image.NewPaletted(image.Rect(0, 0, w, h), palette(&r))

	// The horizontal ramp weighs more so the gradient reads as diagonal on
	// landscape and portrait alike; the sign picks which corner is dark.
	ax := axis(&r, w, 0.6)
	bx := axis(&r, h, 0.4)
	minA, maxA := minMax(ax)
	minB, maxB := minMax(bx)
	span := (maxA - minA) + (maxB - minB)
	// Flooring both tables keeps every sum within the gradient's indices.
	a := quantize(ax, minA, span)
	b := quantize(bx, minB, span)

	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		off := b[y]
		for x, v := range a {
			row[x] = v + off
		}
	}
	return img, nil
}

// axis returns weight*ramp + wave along n pixels, ramp running either way.
func axis(r *rng, n int, weight float64) []float64 {
	dir := 1.0
	if r.next()&1 == 1 {
		dir = -1
	}
	cycles := r.between(0.4, 1.6)
	phase := r.between(0, 2*math.Pi)
	depth := r.between(0.04, 0.1)
	out := make([]float64, n)
	for i := range out {
		t := (float64(i) + 0.5) / float64(n)
		out[i] = dir*weight*t + depth*math.Sin(2*math.Pi*cycles*t+phase)
	}
	return out
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func quantize(v []float64, lo, span float64) []uint8 {
	out := make([]uint8, len(v))
	if span == 0 {
		return out
	}
	for i, x := range v {
		out[i] = uint8((x - lo) / span * (gradientColours - 1))
	}
	return out
}

// palette runs dark -> mid -> light through three hues spread around the
// colour wheel, which keeps any seed's gradient readable and unmuddy.
func palette(r *rng) color.Palette {
	hue := r.between(0, 360)
	stops := [3]color.RGBA{
		hsl(hue, r.between(0.45, 0.7), 0.22),
		hsl(hue+r.between(80, 150), r.between(0.55, 0.8), 0.5),
		hsl(hue+r.between(170, 260), r.between(0.6, 0.85), 0.76),
	}
	p := make(color.Palette, 256)
	for i := range gradientColours {
		t := 2 * float64(i) / (gradientColours - 1)
		lo := min(int(t), 1)
		p[i] = lerp(stops[lo], stops[lo+1], t-float64(lo))
	}
	p[inkIndex] = color.RGBA{250, 250, 250, 255}
	p[shadowIndex] = color.RGBA{18, 18, 26, 255}
	return p
}

func lerp(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*t)) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}

// hsl converts hue (degrees, any value), saturation and lightness (0..1).
func hsl(hue, s, l float64) color.RGBA {
	hue = math.Mod(hue, 360)
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(hue/60, 2)-1))
	var r, g, b float64
	switch {
	case hue < 60:
		r, g = c, x
	case hue < 120:
		r, g = x, c
	case hue < 180:
		g, b = c, x
	case hue < 240:
		g, b = x, c
	case hue < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	to := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return color.RGBA{to(r), to(g), to(b), 255}
}

// drawLabel writes label centred, in the bitmap font scaled to the image
// (7x13 glyphs would be specks on a 4K image), over a drop shadow so it reads
// on both ends of the gradient.
func drawLabel(img *image.Paletted, label string) {
	face := basicfont.Face7x13
	w, h := img.Rect.Dx(), img.Rect.Dy()
	scale := max(1, min(w, h)/180)
	fit := w * 9 / 10 / (face.Advance * scale)
	runes := []rune(strings.Join(strings.Fields(label), " "))
	if len(runes) == 0 || fit < 4 {
		return
	}
	if len(runes) > fit {
		runes = append(runes[:fit-3], []rune("...")...)
	}
	for i, c := range runes {
		if c < ' ' || c > '~' {
			runes[i] = '\ufffd'
		}
	}
	mask := image.NewAlpha(image.Rect(0, 0, len(runes)*face.Advance, face.Height))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.P(0, face.Ascent)}
	d.DrawString(string(runes))

	x0 := (w - mask.Rect.Dx()*scale) / 2
	y0 := (h - mask.Rect.Dy()*scale) / 2
	shadow := max(1, scale/2)
	stamp(img, mask, x0+shadow, y0+shadow, scale, shadowIndex)
	stamp(img, mask, x0, y0, scale, inkIndex)
}

// stamp paints each set mask pixel as a scale x scale block of colour index.
func stamp(img *image.Paletted, mask *image.Alpha, x0, y0, scale int, index uint8) {
	for my := range mask.Rect.Dy() {
		for mx := range mask.Rect.Dx() {
			if mask.AlphaAt(mx, my).A < 128 {
				continue
			}
			for dy := range scale {
				for dx := range scale {
					img.SetColorIndex(x0+mx*scale+dx, y0+my*scale+dy, index)
				}
			}
		}
	}
}

// drawPlayMark draws a dark disc with a light triangle, the universal sign
// that the picture stands for a video.
func drawPlayMark(img *image.Paletted) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	cx, cy := float64(w)/2, float64(h)/2
	radius := float64(min(w, h)) / 6
	left, right, half := cx-radius*0.35, cx+radius*0.55, radius*0.5
	for y := int(cy - radius); y <= int(cy+radius); y++ {
		for x := int(cx - radius); x <= int(cx+radius); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			if math.Hypot(px-cx, py-cy) > radius {
				continue
			}
			index := uint8(shadowIndex)
			if px >= left && px <= right && math.Abs(py-cy) <= half*(right-px)/(right-left) {
				index = inkIndex
			}
			img.SetColorIndex(x, y, index)
		}
	}
}
