package preview

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"regexp"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDetectKitty(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      func(string) string
		ok, tmux bool
	}{
		{"kitty", env("TERM", "xterm-kitty"), true, false},
		{"kitty inside tmux", env("TERM", "tmux-256color", "KITTY_WINDOW_ID", "1", "TMUX", "/tmp/tmux-0/default,1,0"), true, true},
		{"ghostty", env("TERM", "xterm-ghostty", "TERM_PROGRAM", "ghostty"), true, false},
		{"ghostty inside tmux", env("TERM_PROGRAM", "tmux", "GHOSTTY_RESOURCES_DIR", "/usr/share/ghostty", "TMUX", "x"), true, true},
		// WezTerm answers the query but draws placeholders as glyphs.
		{"wezterm", env("TERM", "xterm-256color", "TERM_PROGRAM", "WezTerm"), false, false},
		{"konsole", env("TERM", "xterm-256color", "KONSOLE_VERSION", "230804"), false, false},
		{"plain xterm", env("TERM", "xterm-256color"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := DetectKitty(tc.env)
			if ok != tc.ok || k.Tmux != tc.tmux {
				t.Errorf("DetectKitty = %+v, %v; want tmux %v, %v", k, ok, tc.tmux, tc.ok)
			}
		})
	}
}

func TestQueryAndReply(t *testing.T) {
	q := Kitty{}.Query()
	if want := "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"; q != want {
		t.Errorf("Query() = %q, want %q", q, want)
	}
	if q := (Kitty{Tmux: true}).Query(); q != "\x1bPtmux;\x1b\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\x1b\\\x1b\\" {
		t.Errorf("tmux Query() = %q", q)
	}

	// What the terminal writes back, decoded by the same decoder Bubble Tea
	// runs on its input.
	for _, tc := range []struct {
		reply string
		want  bool
	}{
		{"\x1b_Gi=31;OK\x1b\\", true},
		{"\x1b_Gi=31;ENOTSUPPORTED:no graphics here\x1b\\", false},
		{"\x1b_Gi=7;OK\x1b\\", false},
		{"\x1b[?62;4c", false},
	} {
		var d uv.EventDecoder
		n, ev := d.Decode([]byte(tc.reply))
		if n != len(tc.reply) {
			t.Fatalf("decoder read %d of %d bytes of %q", n, len(tc.reply), tc.reply)
		}
		if got := IsKittyReply(ev); got != tc.want {
			t.Errorf("IsKittyReply(%T from %q) = %v, want %v", ev, tc.reply, got, tc.want)
		}
	}
	if IsKittyReply(nil) || IsKittyReply("OK") {
		t.Error("IsKittyReply accepted something that is not a graphics event")
	}
}

var apc = regexp.MustCompile(`\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\`)

func TestTransmitSendsTheSharpCopyChunked(t *testing.T) {
	path := writeFile(t, "photo.png", encode(t, noise(400, 200, true), pngEnc))
	c, err := load(path, 30, 15, true)
	if err != nil {
		t.Fatal(err)
	}
	// The photo fills 30x8 cells; at 10x20 pixels a cell that is 300x160,
	// and 300x150 at the photo's aspect.
	if b := c.sharp.Rect; b.Dx() != 300 || b.Dy() != 150 {
		t.Errorf("sharp copy %dx%d, want 300x150", b.Dx(), b.Dy())
	}
	out := Kitty{}.Transmit(c, 7)
	chunks := apc.FindAllStringSubmatch(out, -1)
	if len(chunks) < 2 {
		t.Fatalf("no graphics sequence in %q", out[:min(len(out), 80)])
	}
	first := chunks[0][1]
	for _, opt := range []string{"f=100", "q=2", "i=7", "U=1", "c=30", "r=8", "a=T"} {
		if !strings.Contains(","+first+",", ","+opt+",") {
			t.Errorf("first chunk options %q lack %s", first, opt)
		}
	}
	var payload strings.Builder
	for i, ch := range chunks {
		payload.WriteString(ch[2])
		last := i == len(chunks)-1
		if more := strings.Contains(ch[1], "m=1"); more == last {
			t.Errorf("chunk %d of %d has options %q", i, len(chunks), ch[1])
		}
		if len(ch[2]) > kitty.MaxChunkSize {
			t.Errorf("chunk %d carries %d bytes", i, len(ch[2]))
		}
	}
	raw, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 150 {
		t.Errorf("transmitted %dx%d pixels, want the sharp copy", b.Dx(), b.Dy())
	}

	tmux := Kitty{Tmux: true}.Transmit(c, 7)
	if n := strings.Count(tmux, "\x1bPtmux;"); n != len(chunks) {
		t.Errorf("%d of %d chunks wrapped for tmux", n, len(chunks))
	}
}

func TestSharpCopyIsNeverEnlarged(t *testing.T) {
	path := writeFile(t, "icon.png", encode(t, halves(32, 32, red, blue), pngEnc))
	c, err := load(path, 60, 30, true)
	if err != nil {
		t.Fatal(err)
	}
	if b := c.sharp.Rect; b.Dx() != 32 || b.Dy() != 32 {
		t.Errorf("sharp copy %dx%d, want the source's 32x32", b.Dx(), b.Dy())
	}
}

func TestFree(t *testing.T) {
	if got, want := (Kitty{}).Free(7), "\x1b_Gq=2,i=7,d=I,a=d\x1b\\"; got != want {
		t.Errorf("Free(7) = %q, want %q", got, want)
	}
}

func TestKittyPlaceholders(t *testing.T) {
	c := &Cells{Cols: 3, Rows: 2}
	p := string(kitty.Placeholder)
	d := kitty.Diacritic
	cell := func(row, col int) string { return p + string(d(row)) + string(d(col)) }
	want := "\x1b[38;5;7m" + cell(0, 0) + cell(0, 1) + cell(0, 2) + "\x1b[m\n" +
		"\x1b[38;5;7m" + cell(1, 0) + cell(1, 1) + cell(1, 2) + "\x1b[m"
	if got := c.KittyPlaceholders(7); got != want {
		t.Errorf("KittyPlaceholders(7)\n got %q\nwant %q", got, want)
	}
	if got := c.KittyPlaceholders(0x123456); !strings.HasPrefix(got, "\x1b[38;2;18;52;86m"+cell(0, 0)) {
		t.Errorf("a 24-bit id must be the foreground colour: %q", got[:30])
	}
}
