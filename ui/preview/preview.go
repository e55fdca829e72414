// Package preview turns an image file into terminal cells, for the task
// detail view: the picture a task produced, or a video's cover, drawn where
// the creator is already looking.
//
// Half-blocks are the default. Every cell is the glyph '▀' with a 24-bit
// foreground colour (the upper pixel) and background colour (the lower
// pixel), so a cell shows two pixels stacked. The result is ordinary styled
// text: it composes with lipgloss layout and overlays, Bubble Tea's renderer
// diffs it like any other line, and the renderer downsamples the colours on
// 256- and 16-colour terminals. It works in every terminal, over SSH and in
// tmux. Under NO_COLOR the renderer strips the colours and only the glyphs
// remain, so a caller should show no preview there.
//
// Kitty graphics are used only where they are known to work: the terminal
// must be one that draws kitty's Unicode placeholders (kitty or Ghostty, see
// [DetectKitty]) and must answer the graphics query ([Kitty.Query],
// [IsKittyReply]). Then the image is sent once as an escape string
// ([Kitty.Transmit], with tea.Raw) and drawn by placeholder cells
// ([Cells.KittyPlaceholders]), which are plain text as far as the renderer is
// concerned, so diffing and layout keep working. Direct kitty placement,
// sixel and iTerm2 images sit outside the cell grid and are overwritten or
// duplicated by the renderer, so they are not offered. Terminals that answer
// the query but draw placeholders as glyphs (WezTerm, Konsole) are ruled out
// by the environment check, not by the query.
//
// Decoding a 4K PNG takes 100 to 200 ms and allocates over 30 MB, far too
// long for Update or View. Call [Load] or [Cache.Load]
// inside a tea.Cmd and hand the *Cells to the model in a message; rendering
// it afterwards costs next to nothing ([Cells.HalfBlock] is computed once).
// Scaling uses x/image/draw's ApproxBiLinear, sharpened by a second BiLinear
// pass on a small intermediate when the reduction is large: a 3840x2160 image
// becomes 60x30 cells in well under 5 ms, where CatmullRom on the full image
// took over 100 ms.
package preview

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	// The formats image.Decode sniffs; a GIF shows its first frame.
	_ "image/gif"
	_ "image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"os"
	"sync"

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Limits on what Load will decode. A preview is a glance, not an editor: an
// 8K frame (33 megapixels) still loads, while a header claiming a gigapixel
// image is refused before a single pixel buffer is allocated.
const (
	MaxFileBytes = 64 << 20
	MaxPixels    = 40_000_000
	maxSide      = 1 << 16
)

// Errors that Load wraps, so a caller can tell "not a picture" from damage.
var (
	ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")
	ErrTooLarge = errors.New("too large to preview")
)

// Kitty cells are assumed to be 10x20 pixels when choosing the resolution of
// the copy sent to the terminal; kitty scales it into the placement anyway,
// so the guess only trades sharpness against bytes on the wire.
const (
	kittyCellW = 10
	kittyCellH = 20
)

// Cells is a decoded image scaled to fit a box of terminal cells. It is
// immutable once made and safe to share between goroutines; rendering it
// repeatedly is cheap.
type Cells struct {
	// Cols and Rows are the cells the image occupies: at most the box asked
	// for, smaller along one side when the aspect ratio demands it.
	Cols, Rows int

	// pix holds Cols x (2*Rows or 2*Rows-1) straight-alpha pixels, two per
	// cell vertically.
	pix *image.NRGBA
	// sharp is a higher-resolution copy for kitty graphics, nil unless the
	// cells were loaded for kitty.
	sharp *image.NRGBA

	once  sync.Once
	block string
}

// open stats before opening so that a FIFO or device never blocks the
// command, then returns the file with the stat of what was actually opened.
func open(path string) (*os.File, os.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, readError(path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("cannot preview %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, readError(path, err)
	}
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, readError(path, err)
	}
	if info.Size() == 0 {
		f.Close()
		return nil, nil, fmt.Errorf("cannot preview %s: the file is empty", path)
	}
	if info.Size() > MaxFileBytes {
		f.Close()
		// The size in MB rounded up: a file a byte over 64 MB reads as 65,
		// not as the limit itself.
		return nil, nil, fmt.Errorf("cannot preview %s: %w: the file is %d MB, the limit is %d MB",
			path, ErrTooLarge, (info.Size()+1<<20-1)>>20, MaxFileBytes>>20)
	}
	return f, info, nil
}

// readError puts the operating system's reason in plain words; the path is
// already in the message, so the *PathError around the reason is dropped.
func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot preview %s: the file does not exist: %w", path, err)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("cannot preview %s: permission denied: %w", path, err)
	}
	return fmt.Errorf("cannot preview %s: %w", path, err)
}

func decode(f *os.File, path string, cols, rows int, sharp bool) (*Cells, error) {
	cfg, format, err := image.DecodeConfig(io.LimitReader(f, MaxFileBytes))
	if err != nil {
		return nil, formatError(path, format, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("cannot preview %s: the %s image has no pixels (%dx%d)", path, format, cfg.Width, cfg.Height)
	}
	if cfg.Width > maxSide || cfg.Height > maxSide || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, fmt.Errorf("cannot preview %s: %w: %dx%d pixels, the limit is %d megapixels",
			path, ErrTooLarge, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, readError(path, err)
	}
	img, _, err := image.Decode(io.LimitReader(f, MaxFileBytes))
	if err != nil {
		return nil, formatError(path, format, err)
	}
	if sharp {
		rows = min(rows, maxPlaceholder)
	}
	c := FromImage(img, cols, rows)
	if sharp {
		c.sharp = fit(img, c.Cols*kittyCellW, c.Rows*kittyCellH, false)
	}
	return c, nil
}

// formatError says in plain words what went wrong with the bytes; the
// decoder's own message follows for whoever needs the detail.
func formatError(path, format string, err error) error {
	switch {
	case errors.Is(err, image.ErrFormat):
		return fmt.Errorf("cannot preview %s: %w", path, ErrNotImage)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF),
		// image/png's words for pixel data that stops early.
		err == png.FormatError("not enough pixel data"):
		return fmt.Errorf("cannot preview %s: the file ends in the middle of the image (cut short by an interrupted download?)", path)
	case format != "":
		return fmt.Errorf("cannot preview %s: the %s data is damaged: %w", path, format, err)
	}
	return fmt.Errorf("cannot preview %s: %w", path, err)
}

// FromImage scales img to fit within cols x rows cells, keeping its aspect
// ratio; a cell is one pixel wide and two tall. Small images are enlarged
// with nearest-neighbour so that icons stay crisp. An empty image gives
// empty cells.
func FromImage(img image.Image, cols, rows int) *Cells {
	if img.Bounds().Empty() {
		return &Cells{pix: image.NewNRGBA(image.Rectangle{})}
	}
	cols, rows = max(cols, 1), max(rows, 1)
	pix := fit(img, cols, 2*rows, true)
	return &Cells{Cols: pix.Rect.Dx(), Rows: (pix.Rect.Dy() + 1) / 2, pix: pix}
}

// fit scales src into the largest w x h (not larger than maxW x maxH) with
// src's aspect ratio. When enlarge is false the result is never bigger than
// src.
func fit(src image.Image, maxW, maxH int, enlarge bool) *image.NRGBA {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	w, h := maxW, sh*maxW/sw
	if h > maxH {
		w, h = sw*maxH/sh, maxH
	}
	w, h = max(w, 1), max(h, 1)
	if !enlarge && (w > sw || h > sh) {
		w, h = sw, sh
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	switch {
	case w == sw && h == sh:
		draw.Draw(dst, dst.Rect, src, sb.Min, draw.Src)
	case w > sw || h > sh:
		xdraw.NearestNeighbor.Scale(dst, dst.Rect, src, sb, draw.Src, nil)
	case sw > 4*w || sh > 4*h:
		// ApproxBiLinear reads 4 source pixels per output pixel, so a 64x
		// reduction alone would alias badly; reducing to 4x the target
		// first and filtering that properly averages about 16 samples per
		// output pixel at a fraction of a full-image kernel's cost.
		mid := image.NewRGBA(image.Rect(0, 0, min(sw, 4*w), min(sh, 4*h)))
		xdraw.ApproxBiLinear.Scale(mid, mid.Rect, src, sb, draw.Src, nil)
		xdraw.BiLinear.Scale(dst, dst.Rect, mid, mid.Rect, draw.Src, nil)
	default:
		xdraw.ApproxBiLinear.Scale(dst, dst.Rect, src, sb, draw.Src, nil)
	}
	return unpremultiply(dst)
}

// unpremultiply turns dst into straight alpha in place: the half-block
// renderer and PNG encoding both want the colour a pixel has, not the colour
// it contributes.
func unpremultiply(dst *image.RGBA) *image.NRGBA {
	p := dst.Pix
	for i := 0; i+3 < len(p); i += 4 {
		if a := uint32(p[i+3]); a != 0 && a != 0xff {
			p[i] = uint8(uint32(p[i]) * 0xff / a)
			p[i+1] = uint8(uint32(p[i+1]) * 0xff / a)
			p[i+2] = uint8(uint32(p[i+2]) * 0xff / a)
		}
	}
	return &image.NRGBA{Pix: p, Stride: dst.Stride, Rect: dst.Rect}
}

// bytes estimates the memory the cells hold, for the cache's budget: the
// pixels and the rendered text (about 40 bytes a cell once drawn).
func (c *Cells) bytes() int {
	n := len(c.pix.Pix) + 40*c.Cols*c.Rows
	if c.sharp != nil {
		n += len(c.sharp.Pix)
	}
	return n
}
