package preview

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
)

// maxPlaceholder is the number of row/column diacritics kitty defines
// (rowcolumn-diacritics.txt): a placeholder grid has at most this many rows.
const maxPlaceholder = 297

// queryID is the image id of the capability query. The query stores no
// image, so it cannot collide with the ids a caller transmits.
const queryID = 31

// Kitty speaks the kitty graphics protocol to the terminal. The zero value
// talks to it directly; with Tmux set every sequence is wrapped in tmux's
// passthrough (tmux needs `set -g allow-passthrough on`).
type Kitty struct {
	Tmux bool
}

// DetectKitty reports from the environment whether the terminal is one known
// to draw kitty's Unicode placeholders: kitty and Ghostty. Others that answer
// the graphics query, such as WezTerm and Konsole, draw U+10EEEE as a glyph
// instead, so a query reply alone is not enough. Only when ok is true is it
// worth sending [Kitty.Query]. Pass os.Getenv.
func DetectKitty(getenv func(string) string) (k Kitty, ok bool) {
	k.Tmux = getenv("TMUX") != ""
	term := getenv("TERM")
	switch {
	case term == "xterm-kitty", getenv("KITTY_WINDOW_ID") != "":
	case term == "xterm-ghostty", getenv("TERM_PROGRAM") == "ghostty", getenv("GHOSTTY_RESOURCES_DIR") != "":
	default:
		return k, false
	}
	return k, true
}

// Query returns the escape string asking the terminal whether it supports
// kitty graphics; send it once with tea.Raw. A terminal that does replies
// with an APC string, which Bubble Tea v2 delivers to Update untranslated as
// an ultraviolet KittyGraphicsEvent (tea.Msg is uv.Event, and the program's
// input translation passes unknown events through): test it with
// [IsKittyReply]. A terminal that does not support the protocol stays silent,
// so keep drawing half-blocks until a reply arrives; under tmux the reply
// may never come back, which leaves half-blocks in place.
func (k Kitty) Query() string {
	// A one-pixel RGB image ("AAAA" is three zero bytes) with a=q: checked,
	// answered, never stored.
	q := ansi.KittyGraphics([]byte("AAAA"), "i="+strconv.Itoa(queryID), "s=1", "v=1", "a=q", "t=d", "f=24")
	return k.wrap(q)
}

// IsKittyReply reports whether msg is the terminal's positive answer to
// [Kitty.Query].
func IsKittyReply(msg any) bool {
	e, ok := msg.(uv.KittyGraphicsEvent)
	return ok && e.Options.ID == queryID && string(e.Payload) == "OK"
}

// Transmit returns the escape string that uploads c's image under id (1 to
// 0xFFFFFF; ids below 256 survive colour downsampling best) and creates a
// virtual placement of c.Cols x c.Rows cells for [Cells.KittyPlaceholders].
// Send it once with tea.Raw; sending again under the same id replaces the
// image. It encodes a PNG (about 15 ms for a 600x340 photo), so build it in
// a tea.Cmd. Cells made by [LoadForKitty] send their sharp copy; others send
// their half-block pixels, which the terminal enlarges smoothly.
func (k Kitty) Transmit(c *Cells, id int) string {
	img := c.sharp
	if img == nil {
		img = c.pix
	}
	// BestSpeed also skips PNG's per-row filter search, which is most of
	// the cost at the default level (200 ms for the same photo).
	var raw bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	_ = enc.Encode(&raw, img) // a bytes.Buffer does not fail
	payload := base64.StdEncoding.EncodeToString(raw.Bytes())

	o := kitty.Options{
		ID:               id,
		Action:           kitty.TransmitAndPut,
		Transmission:     kitty.Direct,
		Format:           kitty.PNG,
		Columns:          c.Cols,
		Rows:             min(c.Rows, maxPlaceholder),
		VirtualPlacement: true,
		Quiet:            2, // no replies: they would arrive as stray events
	}
	// The protocol takes at most 4096 payload bytes per escape; m=1 says
	// more follows. MaxChunkSize is a multiple of 4, so every chunk is
	// valid base64 on its own.
	var sb strings.Builder
	sb.Grow(len(payload) + len(payload)/kitty.MaxChunkSize*16 + 64)
	for i := 0; i == 0 || i < len(payload); i += kitty.MaxChunkSize {
		end := min(i+kitty.MaxChunkSize, len(payload))
		opts := []string{"q=2"}
		if i == 0 {
			opts = o.Options()
		}
		switch {
		case end < len(payload):
			opts = append(opts, "m=1")
		case i > 0:
			opts = append(opts, "m=0")
		}
		sb.WriteString(k.wrap(ansi.KittyGraphics([]byte(payload[i:end]), opts...)))
	}
	return sb.String()
}

// Free returns the escape string that deletes image id and its data from the
// terminal's memory; send it with tea.Raw when the preview goes away.
func (k Kitty) Free(id int) string {
	o := kitty.Options{Action: kitty.Delete, Delete: kitty.DeleteID, DeleteResources: true, ID: id, Quiet: 2}
	return k.wrap(ansi.KittyGraphics(nil, o.Options()...))
}

func (k Kitty) wrap(seq string) string {
	if k.Tmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}

// KittyPlaceholders returns the text that draws image id, once transmitted,
// over c.Cols x c.Rows cells: each cell is U+10EEEE with its row and column
// as diacritics, and the image id in the foreground colour. Like HalfBlock,
// lines are joined by "\n" and each ends with an SGR reset.
func (c *Cells) KittyPlaceholders(id int) string {
	var fg string
	if id < 256 {
		fg = "\x1b[38;5;" + strconv.Itoa(id) + "m"
	} else {
		fg = "\x1b[38;2;" + strconv.Itoa(id>>16&0xff) + ";" + strconv.Itoa(id>>8&0xff) + ";" + strconv.Itoa(id&0xff) + "m"
	}
	rows := min(c.Rows, maxPlaceholder)
	var sb strings.Builder
	sb.Grow(rows * (len(fg) + c.Cols*12 + 4))
	for y := range rows {
		if y > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(fg)
		for x := range c.Cols {
			sb.WriteRune(kitty.Placeholder)
			sb.WriteRune(kitty.Diacritic(y))
			// Past the last diacritic kitty infers the column from the
			// cell on the left.
			if x < maxPlaceholder {
				sb.WriteRune(kitty.Diacritic(x))
			}
		}
		sb.WriteString("\x1b[m")
	}
	return sb.String()
}
