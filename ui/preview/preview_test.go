package preview

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

var (
	red   = color.NRGBA{255, 0, 0, 255}
	green = color.NRGBA{0, 255, 0, 255}
	blue  = color.NRGBA{0, 0, 255, 255}
	white = color.NRGBA{255, 255, 255, 255}
	clear = color.NRGBA{}
)

// pixels builds an image from rows of colours.
func pixels(rows ...[]color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, len(rows[0]), len(rows)))
	for y, row := range rows {
		for x, c := range row {
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// halves fills the left half of a w x h image with left and the rest with
// right.
func halves(w, h int, left, right color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		c := right
		if x < w/2 {
			c = left
		}
		img.SetNRGBA(x, 0, c)
	}
	for y := 1; y < h; y++ {
		copy(img.Pix[y*img.Stride:], img.Pix[:img.Stride])
	}
	return img
}

// noise is an image of pseudo-random pixels, opaque or not: the worst case
// for compression and for repeated colours.
func noise(w, h int, opaque bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for i := range img.Pix {
		seed = seed*1664525 + 1013904223
		img.Pix[i] = uint8(seed >> 24)
		if opaque && i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	return img
}

func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func encode(t testing.TB, img image.Image, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngEnc(b *bytes.Buffer, img image.Image) error { return png.Encode(b, img) }
func jpegEnc(b *bytes.Buffer, img image.Image) error {
	return jpeg.Encode(b, img, &jpeg.Options{Quality: 95})
}
func gifEnc(b *bytes.Buffer, img image.Image) error { return gif.Encode(b, img, nil) }

func TestHalfBlockExact(t *testing.T) {
	img := pixels(
		[]color.NRGBA{red, red},
		[]color.NRGBA{green, blue},
		[]color.NRGBA{red, red},
		[]color.NRGBA{green, white},
	)
	c := FromImage(img, 2, 2)
	if c.Cols != 2 || c.Rows != 2 {
		t.Fatalf("cells %dx%d, want 2x2", c.Cols, c.Rows)
	}
	// The second cell of the first line keeps the red foreground and only
	// changes the background; every line starts from scratch and resets.
	want := "\x1b[38;2;255;0;0;48;2;0;255;0m▀\x1b[48;2;0;0;255m▀\x1b[m\n" +
		"\x1b[38;2;255;0;0;48;2;0;255;0m▀\x1b[48;2;255;255;255m▀\x1b[m"
	if got := c.HalfBlock(); got != want {
		t.Errorf("HalfBlock()\n got %q\nwant %q", got, want)
	}
}

func TestHalfBlockTransparencyShowsTerminalBackground(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  *image.NRGBA
		want string
	}{
		{"odd height leaves the lower half empty", pixels([]color.NRGBA{red}),
			"\x1b[38;2;255;0;0;49m▀\x1b[m"},
		{"transparent top draws the lower half", pixels([]color.NRGBA{clear}, []color.NRGBA{blue}),
			"\x1b[38;2;0;0;255;49m▄\x1b[m"},
		{"transparent bottom", pixels([]color.NRGBA{green}, []color.NRGBA{clear}),
			"\x1b[38;2;0;255;0;49m▀\x1b[m"},
		{"fully transparent is a blank", pixels([]color.NRGBA{clear, red}, []color.NRGBA{clear, red}),
			"\x1b[49m \x1b[38;2;255;0;0;48;2;255;0;0m▀\x1b[m"},
		{"half-transparent pixels count as opaque", pixels([]color.NRGBA{{255, 0, 0, 0x80}}, []color.NRGBA{{0, 0, 255, 0x7f}}),
			"\x1b[38;2;255;0;0;49m▀\x1b[m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromImage(tc.img, tc.img.Rect.Dx(), 1)
			if got := c.HalfBlock(); got != tc.want {
				t.Errorf("HalfBlock()\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFitKeepsAspectRatio(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		w, h                 int
		wantCols, wantRows   int
		boxCols, boxRows     int
		wantPixelW, wantPixH int
	}{
		// 60x30 cells are 60x60 pixels.
		{"wide", 400, 100, 60, 8, 60, 30, 60, 15},
		{"tall", 100, 400, 15, 30, 60, 30, 15, 60},
		{"square", 300, 300, 60, 30, 60, 30, 60, 60},
		{"4K", 3840, 2160, 60, 17, 60, 30, 60, 33},
		{"small images are enlarged", 4, 2, 60, 15, 60, 30, 60, 30},
		{"a one-pixel line stays visible", 1000, 1, 60, 1, 60, 30, 60, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromImage(halves(tc.w, tc.h, red, blue), tc.boxCols, tc.boxRows)
			if c.Cols != tc.wantCols || c.Rows != tc.wantRows {
				t.Errorf("cells %dx%d, want %dx%d", c.Cols, c.Rows, tc.wantCols, tc.wantRows)
			}
			if b := c.pix.Rect; b.Dx() != tc.wantPixelW || b.Dy() != tc.wantPixH {
				t.Errorf("pixels %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.wantPixelW, tc.wantPixH)
			}
			lines := strings.Split(c.HalfBlock(), "\n")
			if len(lines) != c.Rows {
				t.Fatalf("%d lines, want %d", len(lines), c.Rows)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != c.Cols {
					t.Errorf("line %d is %d cells wide, want %d", i, w, c.Cols)
				}
			}
		})
	}
}

func TestEmptyImageGivesEmptyCells(t *testing.T) {
	c := FromImage(image.NewNRGBA(image.Rect(0, 0, 0, 5)), 60, 30)
	if c.Cols != 0 || c.Rows != 0 || c.HalfBlock() != "" || c.KittyPlaceholders(1) != "" {
		t.Errorf("cells %dx%d, text %q", c.Cols, c.Rows, c.HalfBlock())
	}
}

// A 64x reduction must keep the picture: the left half red, the right blue,
// with at most one blended column where they meet.
func TestScalingKeepsColours(t *testing.T) {
	c := FromImage(halves(3840, 2160, red, blue), 60, 30)
	for x := range c.Cols {
		p := c.pix.NRGBAAt(x, c.pix.Rect.Dy()/2)
		switch {
		case x < 29 && p != red, x > 30 && p != blue:
			t.Errorf("pixel %d is %v", x, p)
		}
	}
}

func TestLoadSniffsFormats(t *testing.T) {
	img := pixels(
		[]color.NRGBA{red, green},
		[]color.NRGBA{blue, white},
	)
	for _, tc := range []struct {
		format string
		data   []byte
	}{
		{"png", encode(t, img, pngEnc)},
		{"jpeg", encode(t, halves(64, 64, red, blue), jpegEnc)},
		{"gif", encode(t, img, gifEnc)},
		{"webp", encodeWebP(t, img)},
	} {
		t.Run(tc.format, func(t *testing.T) {
			// The name lies on purpose: the content decides.
			path := writeFile(t, "result.txt", tc.data)
			c, err := load(path, 4, 2, false)
			if err != nil {
				t.Fatal(err)
			}
			if c.Cols != 4 || c.Rows != 2 {
				t.Fatalf("cells %dx%d, want 4x2", c.Cols, c.Rows)
			}
			wantTopLeft, wantBottomRight := red, white
			if tc.format == "jpeg" {
				wantTopLeft, wantBottomRight = red, blue
			}
			if p := c.pix.NRGBAAt(0, 0); !near(p, wantTopLeft) {
				t.Errorf("top left %v, want %v", p, wantTopLeft)
			}
			if p := c.pix.NRGBAAt(3, 3); !near(p, wantBottomRight) {
				t.Errorf("bottom right %v, want %v", p, wantBottomRight)
			}
		})
	}
}

// near allows for JPEG's lossy colours.
func near(a, b color.NRGBA) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) < 12 && int(y)-int(x) < 12 }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && a.A == b.A
}

func TestLoadErrorsNameTheFileAndTheProblem(t *testing.T) {
	whole := encode(t, halves(64, 64, red, blue), pngEnc)
	wholeJPEG := encode(t, halves(64, 64, red, blue), jpegEnc)
	damaged := bytes.Clone(whole)
	damaged[len(damaged)/2] ^= 0xff
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
		is         error
	}{
		{"not an image", "notes.png", []byte("just some text, not pixels\n"), "not a PNG, JPEG, GIF or WebP image", ErrNotImage},
		{"empty", "empty.png", nil, "the file is empty", nil},
		{"truncated PNG", "cut.png", whole[:len(whole)/2], "the file ends in the middle of the image", nil},
		{"truncated JPEG", "cut.jpg", wholeJPEG[:len(wholeJPEG)/2], "the file ends in the middle of the image", nil},
		{"damaged PNG", "bad.png", damaged, "the png data is damaged", nil},
		{"missing", "", nil, "the file does not exist", os.ErrNotExist},
		{"directory", "/", nil, "not a regular file", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "missing.png")
			switch {
			case tc.file == "/":
				path = dir
			case tc.file != "":
				path = writeFile(t, tc.file, tc.data)
			}
			c, err := load(path, 60, 30, false)
			if err == nil {
				t.Fatalf("Load = %dx%d cells, want an error", c.Cols, c.Rows)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q should name %s and say %q", msg, path, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}

// pngHeader is a valid PNG signature and IHDR claiming w x h pixels,
// followed by the start of the pixel data: a decoder that trusted the header
// would allocate the whole image on reaching it.
func pngHeader(t *testing.T, w, h uint32) []byte {
	var ihdr []byte
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA
	var idat bytes.Buffer
	zw := zlib.NewWriter(&idat)
	if _, err := zw.Write(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	for _, c := range []struct {
		name string
		data []byte
	}{{"IHDR", ihdr}, {"IDAT", idat.Bytes()}} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(c.data)))
		chunk := append([]byte(c.name), c.data...)
		out = append(out, chunk...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
	}
	return out
}

func TestHugeImagesAreRefusedBeforeDecoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h uint32
	}{
		{"gigapixel", 40000, 40000},
		{"over the pixel limit", 8000, 6000},
		{"absurd side", 1 << 20, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "huge.png", pngHeader(t, tc.w, tc.h))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := load(path, 60, 30, false)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load error %v, want %v naming the file", err, ErrTooLarge)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("refusing allocated %d bytes", n)
			}
		})
	}
}

func TestOversizedFileIsRefusedUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is there, the disk blocks are not.
	if err := f.Truncate(MaxFileBytes + 1<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = load(path, 60, 30, false)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the file is 65 MB, the limit is 64 MB") {
		t.Fatalf("Load error %v", err)
	}
}

// Every byte HalfBlock writes below 0x20 must be a newline or the ESC of an
// SGR sequence (ESC [ digits and semicolons m), and no C1 control may appear:
// the text goes straight to the terminal.
func TestHalfBlockWritesOnlySGRAndNewlines(t *testing.T) {
	for _, img := range []image.Image{noise(97, 61, false), halves(3840, 2160, red, clear), pixels([]color.NRGBA{clear})} {
		out := FromImage(img, 40, 20).HalfBlock()
		for i := 0; i < len(out); {
			r, size := utf8.DecodeRuneInString(out[i:])
			switch {
			case r == '\n':
			case r == 0x1b:
				end := strings.IndexByte(out[i:], 'm')
				if end < 0 || out[i+1] != '[' || strings.Trim(out[i+2:i+end], "0123456789;") != "" {
					t.Fatalf("bad escape at %d: %q", i, out[i:min(len(out), i+20)])
				}
				size = end + 1
			case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError:
				t.Fatalf("control %U at %d", r, i)
			}
			i += size
		}
	}
}

// Reducing a detailed image 64 times must average it, not pick a few pixels:
// black-and-white noise should come out as an even grey. ApproxBiLinear
// alone reads four source pixels per output pixel and leaves a standard
// deviation around 70; the two-step reduction brings it near 12.
func TestLargeReductionsAverage(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 1920, 1080))
	seed := uint32(1)
	for i := range src.Pix {
		seed = seed*1664525 + 1013904223
		src.Pix[i] = uint8(seed>>31) * 255
	}
	c := FromImage(src, 30, 15)
	var sum, sum2, n float64
	for i := 0; i < len(c.pix.Pix); i += 4 {
		v := float64(c.pix.Pix[i])
		sum, sum2, n = sum+v, sum2+v*v, n+1
	}
	mean := sum / n
	if sd := math.Sqrt(sum2/n - mean*mean); sd > 30 || mean < 100 || mean > 155 {
		t.Errorf("noise scaled to mean %.0f, deviation %.1f; want an even grey", mean, sd)
	}
}

func TestErrorMessagesReadPlainly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone.png")
	_, err := load(path, 60, 30, false)
	// The path once, then the reason: not "stat <path>: ..." again.
	if err == nil || strings.Count(err.Error(), path) != 1 ||
		!strings.HasPrefix(err.Error(), "cannot preview "+path+": the file does not exist: ") {
		t.Errorf("Load error %v", err)
	}
}

// load is what the cache does on a miss: it decodes the image file at path and scales it to fit within cols x rows
// terminal cells, keeping its aspect ratio (sharp adds the copy for
// [Kitty.Transmit]). The format is sniffed from the content, never from the
// name. Files over MaxFileBytes and images over MaxPixels are refused after
// reading only their header. It is slow (see the package doc): call it in a
// tea.Cmd.
func load(path string, cols, rows int, sharp bool) (*Cells, error) {
	f, _, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decode(f, path, cols, rows, sharp)
}
