package media

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

func decodePNG(t *testing.T, b []byte) *image.Paletted {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	p, ok := img.(*image.Paletted)
	if !ok {
		t.Fatalf("decoded %T, want a paletted image", img)
	}
	return p
}

func countIndex(p *image.Paletted, index uint8) int {
	n := 0
	for _, v := range p.Pix {
		if v == index {
			n++
		}
	}
	return n
}

func TestPNGSizeAndContent(t *testing.T) {
	tests := []struct {
		w, h  int
		label string
	}{
		{1, 1, ""},
		{7, 3, "tiny"},
		{128, 128, "square"},
		{960, 540, "540p 16:9"},
		{720, 1280, "portrait"},
		{2520, 1080, "a long prompt that will not fit on one line of the image no matter how small the glyphs are drawn, so it is cut"},
		{3840, 2160, "4K 猫"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			b, err := PNG(tt.w, tt.h, 42, tt.label)
			if err != nil {
				t.Fatal(err)
			}
			img := decodePNG(t, b)
			if got := img.Bounds().Size(); got != image.Pt(tt.w, tt.h) {
				t.Fatalf("size %v, want %dx%d", got, tt.w, tt.h)
			}
			if tt.w >= 128 {
				distinct := map[uint8]bool{}
				for _, v := range img.Pix {
					distinct[v] = true
				}
				// A gradient spanning the image uses most of the palette;
				// a flat or broken fill would not.
				if len(distinct) < 100 {
					t.Errorf("only %d distinct colours, want a gradient", len(distinct))
				}
			}
			if ink := countIndex(img, inkIndex); tt.w >= 128 && ink == 0 {
				t.Error("label not drawn")
			}
		})
	}
}

func TestPNGLabelOnlyWhenGiven(t *testing.T) {
	for _, label := range []string{"", "  \n\t "} {
		b, err := PNG(640, 360, 1, label)
		if err != nil {
			t.Fatal(err)
		}
		if n := countIndex(decodePNG(t, b), inkIndex); n != 0 {
			t.Errorf("label %q: %d ink pixels, want none", label, n)
		}
	}
}

func TestPNGDeterministic(t *testing.T) {
	a, _ := PNG(320, 200, 7, "same")
	b, _ := PNG(320, 200, 7, "same")
	c, _ := PNG(320, 200, 8, "same")
	if !bytes.Equal(a, b) {
		t.Error("same seed gave different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same bytes")
	}
}

func TestImageSizeErrors(t *testing.T) {
	for _, sz := range [][2]int{{0, 10}, {10, 0}, {-5, 5}, {maxSide + 1, 2}, {maxSide, maxSide}} {
		if _, err := PNG(sz[0], sz[1], 1, ""); err == nil {
			t.Errorf("PNG(%d, %d): no error", sz[0], sz[1])
		}
		if _, err := JPEGCover(sz[0], sz[1], 1); err == nil {
			t.Errorf("JPEGCover(%d, %d): no error", sz[0], sz[1])
		}
	}
}

func TestJPEGCover(t *testing.T) {
	tests := []struct{ w, h, wantW, wantH int }{
		{1920, 1080, 640, 360},
		{1080, 1920, 360, 640},
		{3840, 2160, 640, 360},
		{1440, 1440, 360, 360},
		{2520, 1080, 840, 360},
		{320, 180, 320, 180}, // never upscaled
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			b, err := JPEGCover(tt.w, tt.h, 3)
			if err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("not a JPEG: %v", err)
			}
			if got := img.Bounds().Size(); got != image.Pt(tt.wantW, tt.wantH) {
				t.Errorf("size %v, want %dx%d", got, tt.wantW, tt.wantH)
			}
			// The play triangle covers the centre; the disc around it is dark.
			r, g, bl, _ := img.At(tt.wantW/2, tt.wantH/2).RGBA()
			if r>>8 < 200 || g>>8 < 200 || bl>>8 < 200 {
				t.Errorf("centre pixel %d,%d,%d, want the light play mark", r>>8, g>>8, bl>>8)
			}
			edge := tt.wantW/2 - min(tt.wantW, tt.wantH)/6 + 3
			if r, _, _, _ := img.At(edge, tt.wantH/2).RGBA(); r>>8 > 60 {
				t.Errorf("disc edge red %d, want dark", r>>8)
			}
			again, _ := JPEGCover(tt.w, tt.h, 3)
			if !bytes.Equal(b, again) {
				t.Error("not deterministic")
			}
		})
	}
}

func BenchmarkPNG(b *testing.B) {
	for _, res := range []string{"720p", "1080p", "4K"} {
		w, h, err := Dimensions("16:9", res)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(res, func(b *testing.B) {
			var size int
			for b.Loop() {
				out, err := PNG(w, h, 42, "a cat surfing a wave at sunset")
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes/img")
		})
	}
}
