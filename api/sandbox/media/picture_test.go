package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"strings"
	"testing"
)

// What a client sees in the sandbox's pictures, decoded with the standard
// library: the size limits, the palette the gradient runs through, the
// label's place, size, shadow and cut, and the cover's play mark.

func TestImageSidesUpToTheLimits(t *testing.T) {
	// Sides of exactly maxSide, and an area of exactly maxPixels, are allowed;
	// the cover is scaled down after the check, so it makes them cheaply.
	for _, sz := range [][2]int{{maxSide, 2}, {2, maxSide}, {8192, 8192}, {maxSide, 4096}} {
		if _, err := JPEGCover(sz[0], sz[1], 1); err != nil {
			t.Errorf("JPEGCover(%d, %d): %v", sz[0], sz[1], err)
		}
	}
	for _, sz := range [][2]int{{maxSide, 1}, {1, maxSide}} {
		b, err := PNG(sz[0], sz[1], 1, "")
		if err != nil {
			t.Fatalf("PNG(%d, %d): %v", sz[0], sz[1], err)
		}
		if got := decodePNG(t, b).Bounds().Size(); got != image.Pt(sz[0], sz[1]) {
			t.Errorf("PNG(%d, %d) is %v", sz[0], sz[1], got)
		}
	}
	if _, err := JPEGCover(8192, 8193, 1); err == nil {
		t.Error("JPEGCover(8192, 8193): an area over the limit was allowed")
	}
}

// hslOf returns the hue (degrees), saturation and lightness of c.
func hslOf(c color.Color) (h, s, l float64) {
	r8, g8, b8, _ := c.RGBA()
	r, g, b := float64(r8>>8)/255, float64(g8>>8)/255, float64(b8>>8)/255
	hi, lo := max(r, g, b), min(r, g, b)
	l = (hi + lo) / 2
	d := hi - lo
	if d == 0 {
		return 0, 0, l
	}
	s = d / (1 - math.Abs(2*l-1))
	switch hi {
	case r:
		h = math.Mod((g-b)/d+6, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	return h * 60, s, l
}

func rgbOf(c color.Color) [3]int {
	r, g, b, _ := c.RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// TestGradientPalette checks the doc's promise for many seeds: the gradient
// runs dark (lightness 0.22) -> mid (0.5) -> light (0.76) through three hues
// spread around the wheel, with the saturations given, smoothly; the two last
// entries are the label's ink and shadow.
func TestGradientPalette(t *testing.T) {
	within := func(v, lo, hi, tol float64) bool { return v >= lo-tol && v <= hi+tol }
	hueFrom := func(a, b float64) float64 { return math.Mod(b-a+720, 360) }
	for seed := range int64(40) {
		b, err := PNG(64, 64, seed, "")
		if err != nil {
			t.Fatal(err)
		}
		p := decodePNG(t, b).Palette
		if len(p) != 256 {
			t.Fatalf("seed %d: %d palette entries, want 256", seed, len(p))
		}
		if got := rgbOf(p[inkIndex]); got != [3]int{250, 250, 250} {
			t.Errorf("seed %d: ink %v", seed, got)
		}
		if got := rgbOf(p[shadowIndex]); got != [3]int{18, 18, 26} {
			t.Errorf("seed %d: shadow %v", seed, got)
		}
		// 1/255 of rounding in each channel.
		const tol = 0.006
		h0, s0, l0 := hslOf(p[0])
		hm, sm, lm := hslOf(p[126])
		h2, s2, l2 := hslOf(p[gradientColours-1])
		if !within(l0, 0.22, 0.22, tol) || !within(s0, 0.45, 0.7, 0.02) {
			t.Errorf("seed %d: dark end %v has saturation %.3f, lightness %.3f", seed, rgbOf(p[0]), s0, l0)
		}
		if !within(lm, 0.5, 0.5, 0.015) || !within(sm, 0.55, 0.8, 0.03) {
			t.Errorf("seed %d: middle %v has saturation %.3f, lightness %.3f", seed, rgbOf(p[126]), sm, lm)
		}
		if !within(l2, 0.76, 0.76, tol) || !within(s2, 0.6, 0.85, 0.03) {
			t.Errorf("seed %d: light end %v has saturation %.3f, lightness %.3f", seed, rgbOf(p[gradientColours-1]), s2, l2)
		}
		if d := hueFrom(h0, hm); !within(d, 80, 150, 3) {
			t.Errorf("seed %d: the middle's hue is %.1f degrees on from the dark end's, want 80 to 150", seed, d)
		}
		if d := hueFrom(h0, h2); !within(d, 170, 260, 3) {
			t.Errorf("seed %d: the light end's hue is %.1f degrees on from the dark end's, want 170 to 260", seed, d)
		}
		// Halfway along each half is halfway between its two colours.
		for _, q := range [][3]int{{0, 63, 126}, {127, 190, gradientColours - 1}} {
			a, m, z := rgbOf(p[q[0]]), rgbOf(p[q[1]]), rgbOf(p[q[2]])
			for c := range 3 {
				if d := 2*m[c] - a[c] - z[c]; d < -3 || d > 3 {
					t.Errorf("seed %d: entry %d %v is not halfway between %v and %v", seed, q[1], m, a, z)
					break
				}
			}
		}
		for i := 1; i < gradientColours; i++ {
			a, z := rgbOf(p[i-1]), rgbOf(p[i])
			for c := range 3 {
				if d := z[c] - a[c]; d < -3 || d > 3 {
					t.Fatalf("seed %d: entries %d %v and %d %v are not neighbours in a smooth gradient", seed, i-1, a, i, z)
				}
			}
		}
	}
}

// TestGradientCoversThePalette: an unlabelled image uses the gradient's
// colours from the first to (nearly) the last, changes smoothly from pixel to
// pixel, and never uses the ink or shadow.
func TestGradientCoversThePalette(t *testing.T) {
	for _, tt := range []struct {
		w, h int
		seed int64
	}{{640, 360, 1}, {360, 640, 2}, {200, 200, 3}, {1280, 720, 4}} {
		b, err := PNG(tt.w, tt.h, tt.seed, "")
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, b)
		lo, hi := 255, 0
		for y := range tt.h {
			for x := range tt.w {
				v := int(img.ColorIndexAt(x, y))
				lo, hi = min(lo, v), max(hi, v)
				if x > 0 {
					if d := v - int(img.ColorIndexAt(x-1, y)); d < -3 || d > 3 {
						t.Fatalf("%dx%d: pixels (%d,%d) and (%d,%d) are %d colours apart", tt.w, tt.h, x-1, y, x, y, d)
					}
				}
				if y > 0 {
					if d := v - int(img.ColorIndexAt(x, y-1)); d < -3 || d > 3 {
						t.Fatalf("%dx%d: pixels (%d,%d) and (%d,%d) are %d colours apart", tt.w, tt.h, x, y-1, x, y, d)
					}
				}
			}
		}
		if lo != 0 || hi < gradientColours-2 || hi >= gradientColours {
			t.Errorf("%dx%d: colour indices %d to %d, want 0 to %d or %d", tt.w, tt.h, lo, hi, gradientColours-2, gradientColours-1)
		}
	}
}

// pictureFingerprints are the colours at a 5x5 grid of points of a few
// pictures, as this package drew them when the test was written. The rng's
// comment promises a seed's picture does not change between releases; the
// tolerance is for floating point that another architecture may fuse.
var pictureFingerprints = []struct {
	name string
	draw func() ([]byte, error)
	want [25][3]int
}{
	{"png 640x360 seed 42", func() ([]byte, error) { return PNG(640, 360, 42, "") }, [25][3]int{
		{210, 181, 110}, {209, 115, 74}, {209, 105, 68}, {209, 87, 59}, {166, 54, 56},
		{209, 150, 93}, {209, 83, 56}, {209, 73, 51}, {202, 62, 48}, {139, 48, 63},
		{209, 146, 91}, {209, 79, 54}, {209, 69, 49}, {199, 62, 49}, {136, 48, 64},
		{209, 142, 88}, {209, 75, 52}, {209, 65, 46}, {195, 61, 49}, {132, 47, 65},
		{209, 106, 69}, {187, 59, 51}, {179, 57, 53}, {164, 54, 57}, {101, 40, 72},
	}},
	{"png 360x640 seed 7", func() ([]byte, error) { return PNG(360, 640, 7, "") }, [25][3]int{
		{165, 40, 214}, {181, 63, 205}, {190, 78, 198}, {201, 96, 190}, {219, 128, 176},
		{147, 45, 191}, {172, 48, 212}, {181, 63, 205}, {192, 81, 197}, {210, 112, 183},
		{80, 66, 109}, {111, 57, 146}, {129, 51, 169}, {150, 44, 195}, {177, 57, 208},
		{83, 66, 112}, {113, 56, 149}, {131, 50, 172}, {152, 44, 198}, {178, 58, 207},
		{84, 65, 113}, {114, 56, 150}, {132, 50, 173}, {154, 43, 199}, {179, 59, 207},
	}},
	{"cover 1920x1080 seed 3", func() ([]byte, error) { return JPEGCover(1920, 1080, 3) }, [25][3]int{
		{91, 69, 20}, {79, 112, 69}, {59, 184, 142}, {58, 189, 149}, {55, 200, 161},
		{86, 89, 44}, {72, 131, 89}, {58, 200, 164}, {61, 198, 166}, {70, 193, 174},
		{74, 135, 92}, {62, 178, 139}, {250, 250, 250}, {92, 185, 194}, {103, 181, 203},
		{66, 161, 119}, {58, 200, 162}, {108, 180, 205}, {111, 178, 209}, {120, 173, 217},
		{66, 158, 117}, {58, 200, 164}, {108, 180, 205}, {109, 178, 209}, {120, 173, 215},
	}},
}

func gridColours(t *testing.T, b []byte) [25][3]int {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sz := img.Bounds().Size()
	var out [25][3]int
	for j := range 5 {
		for i := range 5 {
			// Points between the centre's play mark and the edges.
			x, y := (2*i+1)*sz.X/10, (2*j+1)*sz.Y/10
			out[j*5+i] = rgbOf(img.At(x, y))
		}
	}
	return out
}

func TestPictureOfASeedIsStable(t *testing.T) {
	for _, fp := range pictureFingerprints {
		b, err := fp.draw()
		if err != nil {
			t.Fatal(err)
		}
		got := gridColours(t, b)
		if testing.Verbose() {
			fmt.Printf("%s: %#v\n", fp.name, got)
		}
		for k, want := range fp.want {
			for c := range 3 {
				if d := got[k][c] - want[c]; d < -4 || d > 4 {
					t.Errorf("%s: point %d is %v, want %v", fp.name, k, got[k], want)
					break
				}
			}
		}
	}
}

// inkBox returns the bounds of the pixels of colour index in img and their
// count.
func inkBox(img *image.Paletted, index uint8) (image.Rectangle, int) {
	var box image.Rectangle
	n := 0
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			if img.ColorIndexAt(x, y) != index {
				continue
			}
			n++
			box = box.Union(image.Rect(x, y, x+1, y+1))
		}
	}
	return box, n
}

func TestLabelCentredScaledAndShadowed(t *testing.T) {
	const label = "HELLO THERE"
	for _, sz := range [][2]int{{200, 200}, {640, 360}, {1080, 1920}, {3840, 2160}, {1001, 721}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b, err := PNG(w, h, 5, label)
			if err != nil {
				t.Fatal(err)
			}
			img := decodePNG(t, b)
			scale := max(1, min(w, h)/180)
			ink, n := inkBox(img, inkIndex)
			if n == 0 {
				t.Fatal("no label")
			}
			// Each pixel of a glyph is a scale x scale block.
			if n%(scale*scale) != 0 || ink.Dx()%scale != 0 || ink.Dy()%scale != 0 {
				t.Errorf("ink %v, %d pixels: not made of %dx%d blocks", ink, n, scale, scale)
			}
			// Capitals are 9 of the font's 13 rows high; the text is 11
			// cells of 7 columns, glyphs narrower than their cell.
			if ink.Dy() != 9*scale {
				t.Errorf("ink %d pixels high, want %d (9 rows at scale %d)", ink.Dy(), 9*scale, scale)
			}
			if cell := len(label) * 7 * scale; ink.Dx() > cell || ink.Dx() < cell-7*scale {
				t.Errorf("ink %d pixels wide, want just under %d", ink.Dx(), cell)
			}
			// Glyphs are strokes, not filled cells.
			if area := len(label) * 7 * 13 * scale * scale; n > area*2/5 {
				t.Errorf("%d ink pixels of a %d-pixel text box: glyphs filled in", n, area)
			}
			// Centred, to within a glyph column or row of the font's
			// bearings.
			if cx := ink.Min.X + ink.Max.X - w; cx < -2*scale || cx > 2*scale {
				t.Errorf("ink %v is not centred across a width of %d", ink, w)
			}
			// Capitals fill rows 2 to 10 of the font's 13: their middle is
			// the text's, to the pixel that an odd height leaves over.
			if cy := ink.Min.Y + ink.Max.Y - h; cy < -1 || cy > 0 {
				t.Errorf("ink %v is not centred down a height of %d", ink, h)
			}
			// The shadow is the same text moved right and down.
			shadow := max(1, scale/2)
			sh, sn := inkBox(img, shadowIndex)
			if sn == 0 || sh.Max != ink.Max.Add(image.Pt(shadow, shadow)) || sh.Min.X < ink.Min.X || sh.Min.Y < ink.Min.Y {
				t.Errorf("shadow %v for ink %v, want it %d pixels right and down", sh, ink, shadow)
			}
		})
	}
}

func TestLabelCutToTheWidth(t *testing.T) {
	// At 640x360 glyphs are drawn twice their size (14 pixels a cell) and
	// 90% of the width holds 41 of them.
	const w, h, fit = 640, 360, 576 / 14
	long := strings.Repeat("abcdefghij", 6)
	draw := func(label string) []byte {
		t.Helper()
		b, err := PNG(w, h, 9, label)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(draw(long), draw(long[:fit-3]+"...")) {
		t.Errorf("a %d-character label is not cut to its first %d and \"...\"", len(long), fit-3)
	}
	if bytes.Equal(draw(long[:fit]), draw(long[:fit-3]+"...")) {
		t.Errorf("a label of exactly %d characters, which fits, was cut", fit)
	}
	box, _ := inkBox(decodePNG(t, draw(long)), inkIndex)
	if box.Dx() > w*9/10 || box.Dx() < w*8/10 {
		t.Errorf("cut label %d pixels wide, want at most 90%% of %d and near it", box.Dx(), w)
	}

	// Four characters fit a 32-pixel width; a narrower image has no label.
	for _, tt := range []struct {
		w    int
		want bool
	}{{32, true}, {31, false}} {
		b, err := PNG(tt.w, 20, 1, "ABCD")
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, b)
		if _, n := inkBox(img, inkIndex); (n > 0) != tt.want {
			t.Errorf("width %d: %d ink pixels, want a label %v", tt.w, n, tt.want)
		}
	}
}

func TestLabelReplacesWhatTheFontLacks(t *testing.T) {
	draw := func(label string) string {
		t.Helper()
		b, err := PNG(320, 180, 2, label)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if draw("héllo") != draw("hüllo") || draw("h\x01llo") != draw("héllo") {
		t.Error("characters outside printable ASCII are not all shown as the same mark")
	}
	for _, pair := range [][2]string{{"hello", "héllo"}, {"a b", "aéb"}, {"~", "é"}, {" !", "é!"}} {
		if draw(pair[0]) == draw(pair[1]) {
			t.Errorf("%q is drawn like %q", pair[0], pair[1])
		}
	}
}

// TestCoverPlayMark reads the cover's play mark: a dark disc of a sixth of
// the shorter side around the centre, holding a light triangle that points
// right (its base at 0.35 radius left of the centre, its apex 0.55 right, half
// the radius high on each side of the middle).
func TestCoverPlayMark(t *testing.T) {
	b, err := JPEGCover(1920, 1080, 3)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	const cx, cy, r = 320.0, 180.0, 60.0 // 640x360
	left, right, half := cx-0.35*r, cx+0.55*r, 0.5*r
	light := func(x, y float64) bool {
		c := rgbOf(img.At(int(x), int(y)))
		return c[0] > 200 && c[1] > 200 && c[2] > 200
	}
	dark := func(x, y float64) bool {
		c := rgbOf(img.At(int(x), int(y)))
		return c[0] < 45 && c[1] < 45 && c[2] < 55
	}
	for _, p := range []struct {
		what  string
		x, y  float64
		light bool
	}{
		{"the triangle's base", left + 4, cy, true},
		{"the base's top corner", left + 4, cy - half + 6, true},
		{"the base's bottom corner", left + 4, cy + half - 6, true},
		{"near the apex", right - 8, cy, true},
		{"left of the base", left - 6, cy, false},
		{"right of the apex", right + 6, cy, false},
		{"above the upper edge", cx, cy - half*(right-cx)/(right-left) - 6, false},
		{"below the lower edge", cx, cy + half*(right-cx)/(right-left) + 6, false},
		{"above the edge near the apex", cx + 0.45*r, cy - 0.4*r, false},
		{"the disc's top", cx, cy - r + 5, false},
		{"the disc's left", cx - r + 5, cy, false},
	} {
		if p.light && !light(p.x, p.y) {
			t.Errorf("%s (%.0f,%.0f) is %v, want the light triangle", p.what, p.x, p.y, rgbOf(img.At(int(p.x), int(p.y))))
		}
		if !p.light && !dark(p.x, p.y) {
			t.Errorf("%s (%.0f,%.0f) is %v, want the dark disc", p.what, p.x, p.y, rgbOf(img.At(int(p.x), int(p.y))))
		}
	}
	// Outside the disc is the gradient, not the disc's colour.
	for _, p := range [][2]float64{{cx, cy - r - 6}, {cx, cy + r + 6}, {cx - r - 6, cy}, {cx + r + 6, cy}} {
		if dark(p[0], p[1]) {
			t.Errorf("(%.0f,%.0f) outside the disc is %v, the disc's colour", p[0], p[1], rgbOf(img.At(int(p[0]), int(p[1]))))
		}
	}
}

// TestPlayMarkShape counts the mark's pixels before the cover is compressed:
// the disc and the triangle are symmetric about the middle row, and the disc
// about the middle column, at sizes where the edges fall between pixels and
// where they fall on them.
func TestPlayMarkShape(t *testing.T) {
	for _, sz := range [][2]int{{100, 100}, {60, 60}, {640, 360}, {90, 160}, {16, 15}, {60, 61}} {
		w, h := sz[0], sz[1]
		img, err := pattern(w, h, 1)
		if err != nil {
			t.Fatal(err)
		}
		drawPlayMark(img)
		mark := func(x, y int) uint8 {
			v := img.ColorIndexAt(x, y)
			if v < gradientColours {
				return 0
			}
			return v
		}
		_, ink := inkBox(img, inkIndex)
		_, disc := inkBox(img, shadowIndex)
		r := float64(min(w, h)) / 6
		if area := math.Pi * r * r; math.Abs(float64(ink+disc)-area) > 2*math.Pi*r {
			t.Errorf("%dx%d: the mark has %d pixels, want about %.0f (radius %.1f)", w, h, ink+disc, area, r)
		}
		if w == 16 && h == 15 {
			// The radius is 2.5 pixels and the pixels whose centres are
			// 1.5 across and 2 down from the middle lie on the circle:
			// they are part of the disc.
			for _, p := range []image.Point{{6, 5}, {9, 5}, {6, 9}, {9, 9}} {
				if mark(p.X, p.Y) != shadowIndex {
					t.Errorf("16x15: (%d,%d), on the circle, is not in the disc", p.X, p.Y)
				}
			}
		}
		// The triangle is closed: a pixel whose centre lies on its base
		// (60x60: x = 26.5), at its apex (60x61: 35.5, 30.5) or at a corner
		// of its base (60x61: 26.5, 25.5) is drawn light.
		for _, tie := range []struct{ w, h, x, y int }{{60, 60, 26, 30}, {60, 61, 35, 30}, {60, 61, 26, 25}} {
			if w == tie.w && h == tie.h && mark(tie.x, tie.y) != inkIndex {
				t.Errorf("%dx%d: (%d,%d), on the triangle's edge, is not in it", w, h, tie.x, tie.y)
			}
		}
		for y := range h {
			for x := range w {
				if mark(x, y) != mark(x, h-1-y) {
					t.Fatalf("%dx%d: (%d,%d) and (%d,%d) differ: not symmetric about the middle row", w, h, x, y, x, h-1-y)
				}
				if (mark(x, y) == 0) != (mark(w-1-x, y) == 0) {
					t.Fatalf("%dx%d: (%d,%d) and (%d,%d) differ: the disc is not round", w, h, x, y, w-1-x, y)
				}
			}
		}
	}
}
