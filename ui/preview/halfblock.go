package preview

import "strconv"

// Pixels with less than half opacity are drawn as the terminal's own
// background: a cell cannot blend, and a logo on a transparent canvas should
// sit on the user's background rather than on black.
const opaque = 0x80

// Colour states while writing a line: a 0xRRGGBB value, the terminal
// default, or unknown (the start of a line, where text placed before ours by
// a layout may have left any colour set).
const (
	colourDefault = -1
	colourUnknown = -2
)

// HalfBlock renders the cells as text: Rows lines joined by "\n", each
// exactly Cols cells wide and ending with an SGR reset, so lines can be laid
// out next to other text independently. A cell is '▀' with the upper pixel
// as 24-bit foreground and the lower as background; a colour is only written
// when it differs from the previous cell's. Transparent halves show the
// terminal background ('▄' or a space). The string is built once per Cells.
func (c *Cells) HalfBlock() string {
	c.once.Do(func() { c.block = c.halfBlock() })
	return c.block
}

func (c *Cells) halfBlock() string {
	pix, stride, h := c.pix.Pix, c.pix.Stride, c.pix.Rect.Dy()
	buf := make([]byte, 0, c.Rows*(c.Cols*24+8))
	for row := range c.Rows {
		if row > 0 {
			buf = append(buf, '\n')
		}
		fg, bg := colourUnknown, colourUnknown
		top := pix[2*row*stride:]
		var bottom []byte
		if 2*row+1 < h {
			bottom = pix[(2*row+1)*stride:]
		}
		for x := range c.Cols {
			up, down := colourDefault, colourDefault
			if p := top[4*x:]; p[3] >= opaque {
				up = int(p[0])<<16 | int(p[1])<<8 | int(p[2])
			}
			if bottom != nil {
				if p := bottom[4*x:]; p[3] >= opaque {
					down = int(p[0])<<16 | int(p[1])<<8 | int(p[2])
				}
			}
			wantFg, wantBg, glyph := up, down, "▀"
			switch {
			case up == colourDefault && down == colourDefault:
				wantFg, glyph = fg, " " // the foreground does not show
			case up == colourDefault:
				wantFg, wantBg, glyph = down, colourDefault, "▄"
			}
			buf = sgr(buf, fg, bg, wantFg, wantBg)
			fg, bg = wantFg, wantBg
			buf = append(buf, glyph...)
		}
		buf = append(buf, "\x1b[m"...)
	}
	return string(buf)
}

// sgr appends one SGR sequence moving the colours from (fg, bg) to (wantFg,
// wantBg), or nothing when they already match.
func sgr(buf []byte, fg, bg, wantFg, wantBg int) []byte {
	if fg == wantFg && bg == wantBg {
		return buf
	}
	buf = append(buf, "\x1b["...)
	if fg != wantFg {
		buf = colour(buf, wantFg, "38;2;", "39")
		if bg != wantBg {
			buf = append(buf, ';')
		}
	}
	if bg != wantBg {
		buf = colour(buf, wantBg, "48;2;", "49")
	}
	return append(buf, 'm')
}

func colour(buf []byte, c int, rgb, reset string) []byte {
	if c == colourDefault {
		return append(buf, reset...)
	}
	buf = append(buf, rgb...)
	buf = strconv.AppendUint(buf, uint64(c>>16), 10)
	buf = append(buf, ';')
	buf = strconv.AppendUint(buf, uint64(c>>8&0xff), 10)
	buf = append(buf, ';')
	return strconv.AppendUint(buf, uint64(c&0xff), 10)
}
