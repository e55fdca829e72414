package preview

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi/kitty"
)

// The bounds of the package, each from both sides (issue 35): what a user
// of the package sees at exactly a limit and one step past it.

// A 2x3 image is two cells wide and two tall, the last pixel row alone in
// its cells. Each line starts its colours afresh; after that a colour is
// written only when it changes, and only the one that changes.
func TestHalfBlockOfATwoByThreeImage(t *testing.T) {
	img := pixels(
		[]color.NRGBA{red, blue},
		[]color.NRGBA{green, green},
		[]color.NRGBA{white, white},
	)
	c := FromImage(img, 2, 2)
	if c.Cols != 2 || c.Rows != 2 {
		t.Fatalf("cells %dx%d, want 2x2", c.Cols, c.Rows)
	}
	want := "" +
		// red over green, then blue over green: only the foreground moves.
		"\x1b[38;2;255;0;0;48;2;0;255;0m▀\x1b[38;2;0;0;255m▀\x1b[m\n" +
		// the third pixel row, over the terminal's background; the second
		// cell is the same as the first and writes no colour at all.
		"\x1b[38;2;255;255;255;49m▀▀\x1b[m"
	if got := c.HalfBlock(); got != want {
		t.Errorf("HalfBlock()\n got %q\nwant %q", got, want)
	}
}

// A pixel at exactly half opacity (0x80) is drawn, in the upper half and
// in the lower; one step less is the terminal's background.
func TestHalfOpacityIsDrawnInBothHalves(t *testing.T) {
	half := func(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		want string
	}{
		{"lower half at 0x80 under a transparent upper",
			pixels([]color.NRGBA{clear}, []color.NRGBA{half(blue, 0x80)}),
			"\x1b[38;2;0;0;255;49m▄\x1b[m"},
		{"lower half at 0x80 under an opaque upper",
			pixels([]color.NRGBA{red}, []color.NRGBA{half(blue, 0x80)}),
			"\x1b[38;2;255;0;0;48;2;0;0;255m▀\x1b[m"},
		{"lower half at 0x7f is not drawn",
			pixels([]color.NRGBA{clear}, []color.NRGBA{half(blue, 0x7f)}),
			"\x1b[49m \x1b[m"},
		{"upper half at 0x80 over a lower at 0x7f",
			pixels([]color.NRGBA{half(green, 0x80)}, []color.NRGBA{half(red, 0x7f)}),
			"\x1b[38;2;0;255;0;49m▀\x1b[m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FromImage(tc.img, 1, 1).HalfBlock(); got != tc.want {
				t.Errorf("HalfBlock()\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A half-transparent pixel shows its own colour, not the darker colour it
// contributes over black: scaling works on premultiplied pixels, and the
// cells hold them straight again. 8-bit premultiplication at alpha 0x80
// keeps 7 bits of each channel, so each comes back within one of the
// source's (0x40, 0x80, 0xc0 come back as 63, 127, 191).
func TestHalfTransparentColoursAreUnpremultiplied(t *testing.T) {
	src := color.NRGBA{0x40, 0x80, 0xc0, 0x80}
	for _, tc := range []struct {
		name       string
		img        *image.NRGBA
		cols, rows int
	}{
		{"as it is", pixels([]color.NRGBA{src}, []color.NRGBA{src}), 1, 1},
		{"enlarged", pixels([]color.NRGBA{src}, []color.NRGBA{src}), 3, 3},
		{"reduced", halves(8, 8, src, src), 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromImage(tc.img, tc.cols, tc.rows)
			want := color.NRGBA{63, 127, 191, 0x80}
			for y := range c.pix.Rect.Dy() {
				for x := range c.pix.Rect.Dx() {
					if p := c.pix.NRGBAAt(x, y); p != want {
						t.Fatalf("pixel %d,%d is %v, want %v", x, y, p, want)
					}
				}
			}
			line := "\x1b[38;2;63;127;191;48;2;63;127;191m" + strings.Repeat("▀", c.Cols) + "\x1b[m"
			if got := strings.Split(c.HalfBlock(), "\n")[0]; got != line {
				t.Errorf("first line %q, want %q", got, line)
			}
		})
	}
}

// The box is filled along the side that limits it. An image a hair taller
// than the box's shape (1190x600 in 60x30 pixels: 60 wide makes it 30.25
// tall) fills the box whole, rounding the height down, rather than giving
// up a column to round the width.
func TestFitFillsTheBoxAtItsShape(t *testing.T) {
	for _, tc := range []struct {
		name       string
		w, h       int
		cols, rows int
	}{
		{"a hair taller than the box", 1190, 600, 60, 15},
		{"exactly the box's shape", 1200, 600, 60, 15},
		{"a hair wider than the box", 1210, 600, 60, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromImage(halves(tc.w, tc.h, red, blue), 60, 15)
			if c.Cols != tc.cols || c.Rows != tc.rows {
				t.Errorf("%dx%d in the box: cells %dx%d, want %dx%d", tc.w, tc.h, c.Cols, c.Rows, tc.cols, tc.rows)
			}
		})
	}
}

// transmitted decodes what [Kitty.Transmit] sends: the payloads of its
// escapes put together, and the PNG they make.
func transmitted(t *testing.T, out string) (payload string, img image.Image) {
	t.Helper()
	var sb strings.Builder
	matches := apc.FindAllStringSubmatch(out, -1)
	for _, ch := range matches {
		sb.WriteString(ch[2])
	}
	if len(matches) == 0 {
		t.Fatalf("no graphics escape in %q", out[:min(len(out), 80)])
	}
	raw, err := base64.StdEncoding.DecodeString(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	if img, err = png.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	return sb.String(), img
}

// withPayload returns the cells of a noise image h pixels tall whose PNG
// is exactly n base64 bytes, trying widths from w on (w is the one with
// today's encoder).
func withPayload(t *testing.T, n, w, h int) *Cells {
	t.Helper()
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	for ; w < 4096; w++ {
		img := noise(w, h, true)
		var raw bytes.Buffer
		if err := enc.Encode(&raw, img); err != nil {
			t.Fatal(err)
		}
		if got := base64.StdEncoding.EncodedLen(raw.Len()); got == n {
			return FromImage(img, w, (h+1)/2)
		} else if got > n+4096 {
			break
		}
	}
	t.Fatalf("no noise image of height %d encodes to %d base64 bytes", h, n)
	return nil
}

// The protocol takes at most 4096 payload bytes an escape. A payload of
// exactly one chunk is one escape with no m key; of exactly two chunks, two
// escapes (m=1, then m=0) and not an empty third; 4 bytes more than one
// chunk is a second escape of 4 bytes.
func TestTransmitChunksAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		w, h   int
		chunks []int // payload bytes of each escape
		more   []string
	}{
		{"exactly one chunk", kitty.MaxChunkSize, 999, 1, []int{4096}, []string{""}},
		{"one chunk and 4 bytes", kitty.MaxChunkSize + 4, 1000, 1, []int{4096, 4}, []string{"m=1", "m=0"}},
		{"exactly two chunks", 2 * kitty.MaxChunkSize, 674, 3, []int{4096, 4096}, []string{"m=1", "m=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := withPayload(t, tc.n, tc.w, tc.h)
			out := Kitty{}.Transmit(c, 9)
			matches := apc.FindAllStringSubmatch(out, -1)
			if len(matches) != len(tc.chunks) {
				t.Fatalf("%d escapes for a payload of %d bytes, want %d: options %q", len(matches), tc.n, len(tc.chunks), optionsOf(matches))
			}
			for i, m := range matches {
				if len(m[2]) != tc.chunks[i] {
					t.Errorf("escape %d carries %d bytes, want %d", i, len(m[2]), tc.chunks[i])
				}
				more := ""
				for o := range strings.SplitSeq(m[1], ",") {
					if strings.HasPrefix(o, "m=") {
						more = o
					}
				}
				if more != tc.more[i] {
					t.Errorf("escape %d has options %q, want m key %q", i, m[1], tc.more[i])
				}
				if i > 0 && m[1] != "q=2,"+tc.more[i] {
					t.Errorf("escape %d has options %q, want only q=2 and %s", i, m[1], tc.more[i])
				}
			}
			payload, img := transmitted(t, out)
			if len(payload) != tc.n || img.Bounds() != c.pix.Rect {
				t.Errorf("sent %d bytes of a %v image, want %d of %v", len(payload), img.Bounds(), tc.n, c.pix.Rect)
			}
		})
	}
}

func optionsOf(matches [][]string) []string {
	var o []string
	for _, m := range matches {
		o = append(o, m[1])
	}
	return o
}

// Building the escape string holds memory of the order of what it sends
// (the PNG, its base64 and the escapes), not a multiple of it per chunk.
func TestTransmitMemoryIsOfTheOrderOfItsOutput(t *testing.T) {
	c := withPayload(t, 2*kitty.MaxChunkSize, 674, 3)
	k := Kitty{}
	_ = k.Transmit(c, 9) // warm up
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := k.Transmit(c, 9)
	runtime.ReadMemStats(&after)
	// The PNG encoder's compressor is most of it: about 1 MB at BestSpeed.
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("sending %d bytes allocated %d", len(out), n)
	}
}

// Empty cells (FromImage of an empty image) can be handed to Transmit like
// any others, inside a tea.Cmd: it sends no image data, and does not panic.
func TestTransmitOfEmptyCells(t *testing.T) {
	c := FromImage(image.NewNRGBA(image.Rect(0, 0, 0, 5)), 60, 30)
	var out string
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Transmit of empty cells panicked: %v", r)
			}
		}()
		out = Kitty{}.Transmit(c, 5)
	}()
	for _, m := range apc.FindAllStringSubmatch(out, -1) {
		if m[2] != "" {
			t.Errorf("empty cells sent image data %q", m[2])
		}
	}
}

// Image ids below 256 are a 256-colour index; from 256 on, a 24-bit colour.
func TestKittyPlaceholderIdAt256(t *testing.T) {
	c := &Cells{Cols: 1, Rows: 1}
	for id, want := range map[int]string{
		255: "\x1b[38;5;255m",
		256: "\x1b[38;2;0;1;0m",
	} {
		if got := c.KittyPlaceholders(id); !strings.HasPrefix(got, want+string(kitty.Placeholder)) {
			t.Errorf("KittyPlaceholders(%d) = %q, want it to start %q", id, got, want)
		}
	}
}

// Kitty defines 297 column diacritics: the cells of columns 0 to 296 name
// theirs, and a cell past them names none (kitty then takes the column from
// the cell on its left); the first diacritic there would say column 0.
func TestKittyPlaceholdersPastTheLastDiacritic(t *testing.T) {
	c := &Cells{Cols: maxPlaceholder + 2, Rows: 1}
	got := []rune(strings.TrimSuffix(strings.TrimPrefix(c.KittyPlaceholders(7), "\x1b[38;5;7m"), "\x1b[m"))
	var want []rune
	for x := range c.Cols {
		want = append(want, kitty.Placeholder, kitty.Diacritic(0))
		if x < maxPlaceholder {
			want = append(want, kitty.Diacritic(x))
		}
	}
	if string(got) != string(want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("placeholders differ at rune %d of %d: %U, want %U", i, len(want), got[i], want[i])
			}
		}
		t.Fatalf("%d runes, want %d", len(got), len(want))
	}
}

// line is a line of n pixels, one wide (across) or one tall: red for its
// first half, blue for the rest.
func line(n int, across bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 1, n))
	if across {
		img = image.NewNRGBA(image.Rect(0, 0, n, 1))
	}
	for i := range n {
		c := blue
		if i < n/2 {
			c = red
		}
		copy(img.Pix[4*i:], []byte{c.R, c.G, c.B, c.A})
	}
	return img
}

// A line one pixel wide or tall is scaled along its length like any other
// image, not cut to the box: red to blue from end to end, in the cells and
// in the copy sent to kitty. That copy is never larger than the placement
// at 10x20 pixels a cell, whatever its thin side.
func TestOnePixelLinesAreScaledWhole(t *testing.T) {
	for _, tc := range []struct {
		name           string
		across         bool
		cols, rows     int // of the cells in a 60x30 box
		sharpW, sharpH int
	}{
		{"one pixel wide", false, 1, 30, 1, 600},
		{"one pixel tall", true, 60, 1, 600, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "line.png", encode(t, line(1000, tc.across), pngEnc))
			c, err := NewCache(1).LoadForKitty(path, 60, 30)
			if err != nil {
				t.Fatal(err)
			}
			if c.Cols != tc.cols || c.Rows != tc.rows {
				t.Errorf("cells %dx%d, want %dx%d", c.Cols, c.Rows, tc.cols, tc.rows)
			}
			_, sent := transmitted(t, Kitty{}.Transmit(c, 3))
			if b := sent.Bounds(); b.Dx() != tc.sharpW || b.Dy() != tc.sharpH {
				t.Errorf("sent %dx%d pixels, want %dx%d (the placement is %dx%d)",
					b.Dx(), b.Dy(), tc.sharpW, tc.sharpH, c.Cols*kittyCellW, c.Rows*kittyCellH)
			}
			for name, img := range map[string]image.Image{"cells": c.pix, "sent copy": sent} {
				b := img.Bounds()
				first, last := color.NRGBAModel.Convert(img.At(0, 0)), color.NRGBAModel.Convert(img.At(b.Max.X-1, b.Max.Y-1))
				if first != red || last != blue {
					t.Errorf("%s %dx%d runs from %v to %v, want red to blue", name, b.Dx(), b.Dy(), first, last)
				}
			}
		})
	}
}

// deviation is the standard deviation of the red channel of img's pixels.
func deviation(img *image.NRGBA) float64 {
	var sum, sum2, n float64
	for i := 0; i < len(img.Pix); i += 4 {
		v := float64(img.Pix[i])
		sum, sum2, n = sum+v, sum2+v*v, n+1
	}
	mean := sum / n
	return math.Sqrt(sum2/n - mean*mean)
}

// blackAndWhite is w x h pixels of black-and-white noise.
func blackAndWhite(w, h int) *image.Gray {
	src := image.NewGray(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for i := range src.Pix {
		seed = seed*1664525 + 1013904223
		src.Pix[i] = uint8(seed>>31) * 255
	}
	return src
}

// A line of black-and-white noise one pixel across, reduced 32 times along
// its length, is averaged like any large reduction (TestLargeReductionsAverage),
// not sampled pixel by pixel (a deviation near 127).
func TestOnePixelLinesAreAveraged(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  *image.Gray
	}{
		{"one pixel wide", blackAndWhite(1, 1920)},
		{"one pixel tall", blackAndWhite(1920, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromImage(tc.img, 60, 30)
			if sd := deviation(c.pix); sd > 60 {
				t.Errorf("noise scaled to %v pixels deviates by %.0f; want it averaged", c.pix.Rect.Size(), sd)
			}
		})
	}
}

// A reduction of at most 4 times is one pass from the source to the cells;
// past that, the source is first reduced to 4 times the cells. At exactly 4
// times, then, no copy of the source's size is made (it would be one of a
// whole 4K frame for a kitty copy of 960x540); one pixel more and the two
// passes average the noise far more than one pass of 4 samples would.
func TestReductionByFourAtTheBound(t *testing.T) {
	exact := blackAndWhite(2400, 2400) // 4 times 600x600 pixels: 600x300 cells
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c := FromImage(exact, 600, 300)
	runtime.ReadMemStats(&after)
	if c.Cols != 600 || c.Rows != 300 {
		t.Fatalf("cells %dx%d, want 600x300", c.Cols, c.Rows)
	}
	out := len(c.pix.Pix)
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(2*out) {
		t.Errorf("reducing 2400x2400 pixels to %d bytes of 600x600 allocated %d (the source as RGBA is %d)", out, n, 2400*2400*4)
	}
	over := FromImage(blackAndWhite(241, 241), 60, 30)
	if sd := deviation(over.pix); sd > 40 {
		t.Errorf("noise reduced from 241x241 to %v pixels deviates by %.0f; want it averaged", over.pix.Rect.Size(), sd)
	}
}

// The darkest blues, #000001 and #000002, are colours like any other: not
// taken for the terminal's own colours, nor for "no colour set yet" at the
// start of a line.
func TestTheDarkestColoursAreColours(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		dark := color.NRGBA{0, 0, v, 0xff}
		c := FromImage(pixels([]color.NRGBA{dark, dark}, []color.NRGBA{dark, dark}), 2, 1)
		want := fmt.Sprintf("\x1b[38;2;0;0;%d;48;2;0;0;%dm▀▀\x1b[m", v, v)
		if got := c.HalfBlock(); got != want {
			t.Errorf("HalfBlock() of #00000%d\n got %q\nwant %q", v, got, want)
		}
	}
}

// bilevel is a whole PNG of w x h black pixels at one bit a pixel: large
// images at little cost to write and to read.
func bilevel(t *testing.T, w, h int) []byte {
	t.Helper()
	var ihdr []byte
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 1, 0, 0, 0, 0) // 1-bit greyscale
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 1+(w+7)/8) // filter byte 0, then zero bits
	for range h {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := []byte("\x89PNG\r\n\x1a\n")
	for _, c := range []struct {
		name string
		data []byte
	}{{"IHDR", ihdr}, {"IDAT", idat.Bytes()}, {"IEND", nil}} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(c.data)))
		chunk := append([]byte(c.name), c.data...)
		out = append(out, chunk...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
	}
	return out
}

// An image of exactly 65536 pixels a side or exactly MaxPixels loads; one
// pixel (or one row) more is refused as too large, before decoding.
func TestImageSizeLimitsAtTheirBounds(t *testing.T) {
	black := color.NRGBA{0, 0, 0, 0xff}
	for _, tc := range []struct {
		name       string
		w, h       int
		cols, rows int
	}{
		{"exactly maxSide wide", maxSide, 1, 60, 1},
		{"exactly maxSide tall", 1, maxSide, 1, 30},
		{"exactly MaxPixels", 8000, MaxPixels / 8000, 60, 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "big.png", bilevel(t, tc.w, tc.h))
			c, err := NewCache(1).Load(path, 60, 30)
			if err != nil {
				t.Fatalf("a %dx%d image: %v", tc.w, tc.h, err)
			}
			if c.Cols != tc.cols || c.Rows != tc.rows || c.pix.NRGBAAt(0, 0) != black {
				t.Errorf("cells %dx%d of %v, want %dx%d of black", c.Cols, c.Rows, c.pix.NRGBAAt(0, 0), tc.cols, tc.rows)
			}
		})
	}
	for _, tc := range []struct {
		name string
		w, h int
	}{
		{"one pixel wider than maxSide", maxSide + 1, 1},
		{"one pixel taller than maxSide", 1, maxSide + 1},
		// MaxPixels+1 has no factors within maxSide: a row more.
		{"a row over MaxPixels", 8000, MaxPixels/8000 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "big.png", pngHeader(t, uint32(tc.w), uint32(tc.h)))
			_, err := NewCache(1).Load(path, 60, 30)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("a %dx%d image: error %v, want %v", tc.w, tc.h, err, ErrTooLarge)
			}
			want := fmt.Sprintf("too large to preview: %dx%d pixels, the limit is 40 megapixels", tc.w, tc.h)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want it to say %q", err, want)
			}
		})
	}
}

// A GIF can declare a canvas with no columns or no rows; decoding it gives
// an empty image. Load says so rather than showing nothing.
func TestImageWithNoPixelsIsRefused(t *testing.T) {
	pal := color.Palette{color.Black, color.White}
	for _, r := range []image.Rectangle{image.Rect(0, 0, 0, 5), image.Rect(0, 0, 5, 0)} {
		var b bytes.Buffer
		if err := gif.Encode(&b, image.NewPaletted(r, pal), nil); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, "empty.gif", b.Bytes())
		c, err := NewCache(1).Load(path, 60, 30)
		want := fmt.Sprintf("the gif image has no pixels (%dx%d)", r.Dx(), r.Dy())
		if err == nil {
			t.Errorf("a %v GIF loaded as %dx%d cells, want %q", r.Size(), c.Cols, c.Rows, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to say %q", err, want)
		}
	}
}

// A file of exactly MaxFileBytes is read; one byte more is refused unread,
// and the message's sizes do not contradict each other.
func TestFileSizeLimitAtItsBound(t *testing.T) {
	img := encode(t, pixels([]color.NRGBA{red, blue}), pngEnc)
	path := filepath.Join(t.TempDir(), "padded.png")
	// PNG decoders stop at the end chunk: the rest is sparse padding.
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxFileBytes); err != nil {
		t.Fatal(err)
	}
	c, err := NewCache(1).Load(path, 2, 1)
	if err != nil {
		t.Fatalf("a file of exactly MaxFileBytes: %v", err)
	}
	if c.pix.NRGBAAt(1, 0) != blue {
		t.Errorf("pixel 1 is %v, want blue", c.pix.NRGBAAt(1, 0))
	}
	if err := os.Truncate(path, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	_, err = NewCache(1).Load(path, 2, 1)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a file one byte over MaxFileBytes: error %v, want %v", err, ErrTooLarge)
	}
	if !strings.Contains(err.Error(), "the file is 65 MB, the limit is 64 MB") {
		t.Errorf("error %q: a file over the limit must not read as within it", err)
	}
}

// sized is cells whose memory, as the cache counts it, is their pixels (4
// bytes each, in the half-block copy and the kitty copy) and about 40 bytes
// a cell of drawn text.
func sized(cols, rows, sharpW, sharpH int) *Cells {
	return &Cells{Cols: cols, Rows: rows,
		pix:   image.NewNRGBA(image.Rect(0, 0, cols, 2*rows)),
		sharp: image.NewNRGBA(image.Rect(0, 0, sharpW, sharpH))}
}

// Entries that add up to exactly the cache's budget are all kept; one pixel
// more pushes out the least recently used.
func TestCacheBudgetAtItsBound(t *testing.T) {
	// Two previews of 64x32 cells (64x64 pixels and 2048 cells of text,
	// 98304 bytes each), with kitty copies of 2744x3034 and 118x120 pixels:
	// 32 MB in all. A kitty copy of 119x119 is one pixel more.
	for _, tc := range []struct {
		name           string
		sharpW, sharpH int
		keep           int
	}{
		{"exactly the budget", 118, 120, 2},
		{"one pixel over", 119, 119, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(10)
			first, second := sized(64, 32, 2744, 3034), sized(64, 32, tc.sharpW, tc.sharpH)
			c.put(cacheKey{path: "first"}, first)
			c.put(cacheKey{path: "second"}, second)
			total := 2*(64*64*4+64*32*40) + (2744*3034+tc.sharpW*tc.sharpH)*4
			if n := c.lru.Len(); n != tc.keep {
				t.Errorf("%d of 2 entries kept at %d bytes (the budget is %d), want %d", n, total, cacheBytes, tc.keep)
			}
			if c.get(cacheKey{path: "second"}) != second {
				t.Error("the newest entry was not kept")
			}
			if tc.keep == 1 && c.get(cacheKey{path: "first"}) != nil {
				t.Error("the oldest entry was kept over the budget")
			}
		})
	}
}
