package forms

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The key-frame editor's view at the widths a terminal gives it: what each
// line says and where, and that no line passes the width.

// lines are the view's lines, each checked against the width.
func lines(t *testing.T, e *framesEditor, width int) []string {
	t.Helper()
	v := seen(e, width)
	ls := strings.Split(v, "\n")
	for _, l := range ls {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("a line of %d cells at width %d: %q", w, width, l)
		}
	}
	return ls
}

// lineWith is the first line holding s, "" when none does.
func lineWith(ls []string, s string) string {
	for _, l := range ls {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// No room draws nothing; no frames unfocused says what frames are for;
// focused there is the add row, and nothing blank around the lines.
func TestFramesViewEmpty(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	if v := e.View(bareStyles(), 0, true); v != "" {
		t.Fatalf("width 0 drew %q", v)
	}
	if v := ansi.Strip(e.View(bareStyles(), 80, false)); v != "no key frames: the video moves from the start image through each in turn" {
		t.Fatalf("unfocused, no frames:\n%q", v)
	}
	e.Focus()
	ls := lines(t, e, 80)
	if len(ls) != 1 || !strings.HasPrefix(ls[0], "▸ + add key frame ctrl+n") || strings.Contains(ls[0], "no key frames") {
		t.Fatalf("focused, no frames:\n%q", ls)
	}
	driveEditor(t, e, "type:a.png")
	ls = lines(t, e, 80)
	if ls[0] == "" || ls[len(ls)-1] == "" || !strings.HasPrefix(lineWith(ls, "add key frame"), "  + add key frame") {
		t.Fatalf("with a frame focused:\n%q", ls)
	}
}

// The total is the video's length: given durations plus the default for
// each frame without one, which it counts; a frame kept as given adds
// nothing.
func TestFramesViewTotal(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Set([]any{map[string]any{"key_image": "a.png", "duration": 2.0}, "odd", map[string]any{"key_image": "b.png", "duration": 7.0}})
	e.Focus()
	if l := lineWith(lines(t, e, 80), "total"); !strings.HasSuffix(l, "total 9 s") {
		t.Fatalf("durations given: %q", l)
	}
	driveEditor(t, e, "pgdown", "pgdown", "ctrl+n", "type:c.png")
	if l := lineWith(lines(t, e, 80), "total"); !strings.HasSuffix(l, "total 14 s (1 frame defaults to 5 s)") {
		t.Fatalf("one duration missing: %q", l)
	}
	driveEditor(t, e, "ctrl+n", "type:d.png")
	if l := lineWith(lines(t, e, 80), "total"); !strings.HasSuffix(l, "total 19 s (2 frames default to 5 s)") {
		t.Fatalf("two durations missing: %q", l)
	}
}

// The total sits at the add row's right edge while two cells part them,
// else on a line of its own.
func TestFramesViewTotalAtTheRightEdge(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Set([]any{map[string]any{"key_image": "a.png", "duration": 5.0}, map[string]any{"key_image": "b.png", "duration": 5.0}})
	e.Focus()
	left, right := "  + add key frame ctrl+n", "total 10 s"
	for _, width := range []int{80, len(left) + 2 + len(right)} {
		l := lineWith(lines(t, e, width), "add key frame")
		if l != left+strings.Repeat(" ", width-len(left)-len(right))+right {
			t.Errorf("width %d: %q", width, l)
		}
	}
	width := len(left) + 1 + len(right)
	ls := lines(t, e, width)
	if l := lineWith(ls, "add key frame"); l != left {
		t.Errorf("width %d: %q", width, l)
	}
	if l := lineWith(ls, "total"); l != "  "+right {
		t.Errorf("width %d, the total's line: %q", width, l)
	}
}

// The check's price follows the total while there are frames.
func TestFramesViewPrice(t *testing.T) {
	e := focusedFrames(t, nil, "a.png")
	e.takeCheck(nil, "40 credits")
	if l := lineWith(lines(t, e, 80), "total"); !strings.HasSuffix(l, "total 5 s (1 frame defaults to 5 s) · 40 credits") {
		t.Fatalf("the price: %q", l)
	}
	driveEditor(t, e, "ctrl+x")
	if l := lineWith(lines(t, e, 80), "total"); strings.Contains(l, "credits") {
		t.Fatalf("a price without frames: %q", l)
	}
}

// Notices are the focused editor's: blurred, it shows only the frames.
func TestFramesViewNoticeOnlyFocused(t *testing.T) {
	e := focusedFrames(t, nil, "a.png", "b.png")
	driveEditor(t, e, "ctrl+x")
	if v := ansi.Strip(e.View(bareStyles(), 80, false)); strings.Contains(v, "removed") || strings.Contains(v, "add key frame") {
		t.Fatalf("blurred:\n%s", v)
	}
}

// Each frame's line: its number (✗ and the number when the check found
// something wrong with it), key image, duration and prompt in columns
// that line up, the key image's column a third of the width (14 to 40).
func TestFramesViewSummaryColumns(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Set([]any{
		map[string]any{"key_image": "a.png", "duration": 3.0, "prompt": "dawn"},
		map[string]any{"key_image": "b.png", "duration": 9.0},
		map[string]any{"key_image": " "},
	})
	e.takeCheck([]string{
		"image_settings[1].duration: accepts 2 to 7 seconds, got 9",
		"image_settings[x].duration: not a frame",
		"image_settings: takes 2 to 9 items",
		"start_image[2]: not this field",
	}, "")
	for _, tc := range []struct{ width, img int }{{30, 14}, {60, 20}, {80, 26}, {140, 40}} {
		ls := strings.Split(ansi.Strip(e.View(bareStyles(), tc.width, false)), "\n")
		if len(ls) != 3 {
			t.Fatalf("width %d: %q", tc.width, ls)
		}
		want := []string{
			"  1  " + fmt.Sprintf("%-*s", tc.img, "a.png") + "     3 s  “dawn”",
			"  ✗2 " + fmt.Sprintf("%-*s", tc.img, "b.png") + "     9 s  no prompt",
			"  3  " + fmt.Sprintf("%-*s", tc.img, "(no key image)") + "     5 s  no prompt",
		}
		for i := range want {
			if w := ansi.Truncate(want[i], tc.width, "…"); ls[i] != w {
				t.Errorf("width %d, frame %d:\n got %q\nwant %q", tc.width, i+1, ls[i], w)
			}
		}
	}
}

// A long prompt is cut at the width with "…"; a frame with keys the editor
// cannot show still says so at the end of its line.
func TestFramesViewSummaryKeepsTheFlag(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	long := strings.Repeat("a slow pan over the harbour at dawn, ", 4)
	e.Set([]any{map[string]any{"key_image": "a.png", "prompt": long, "speed": 2.0}, map[string]any{"key_image": "b.png", "prompt": long}})
	for _, width := range []int{60, 80, 140} {
		ls := strings.Split(ansi.Strip(e.View(bareStyles(), width, false)), "\n")
		for i, l := range ls {
			if ansi.StringWidth(l) != width || !strings.Contains(l, "“a slow pa") {
				t.Errorf("width %d, frame %d does not fill its line with its prompt: %q", width, i+1, l)
			}
		}
		if !strings.HasSuffix(ls[0], "… ✗ kept: speed") {
			t.Errorf("width %d: the kept key is not flagged: %q", width, ls[0])
		}
		if !strings.HasSuffix(ls[1], "…") || strings.Contains(ls[1], "kept") {
			t.Errorf("width %d, frame 2: %q", width, ls[1])
		}
	}
}

// The focused part's input shows the end of what is typed (where the cursor
// is), up to the part's note at the row's right edge (100 columns at
// most); where the note does not fit, the input takes the whole row.
func TestFramesViewTypingALongPrompt(t *testing.T) {
	const typed = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-the-END"
	const head = "   › prompt     " // the mark and the part's label
	for _, width := range []int{20, 28, 32, 34, 40, 80, 140} {
		e := focusedFrames(t, nil, "a.png")
		driveEditor(t, e, "down")
		for _, r := range typed {
			driveEditor(t, e, "type:"+string(r))
			e.View(bareStyles(), width, true) // a program draws after each key
		}
		row := lineWith(lines(t, e, width), head)
		room := min(width, 100) - ansi.StringWidth(head)
		input := room // cells for the input: the text and the cursor after it
		note := ""
		if len("optional")+2+8 <= room {
			note = "optional"
			input = room - len(note) - 2
		}
		shown := typed[max(len(typed)-(input-1), 0):]
		if !strings.HasPrefix(row, head+shown) || !strings.HasSuffix(row, note) || ansi.StringWidth(row) != min(width, 100) {
			t.Errorf("width %d: %q, want %q, then the cursor, then %q at %d", width, row, head+shown, note, min(width, 100))
		}
		// A row not focused cuts its value where the note begins.
		if dur := lineWith(lines(t, e, width), "     duration   5 s"); len("2-7 s")+2+8 <= room &&
			(!strings.HasSuffix(dur, "  2-7 s") || ansi.StringWidth(dur) != min(width, 100)) {
			t.Errorf("width %d: the duration's row %q does not end with its note at %d", width, dur, min(width, 100))
		}
	}
}

// A key image from history is named by its task, in the frame's line and
// as which result it is in its row; a URL is said to be one.
func TestFramesViewResultsByName(t *testing.T) {
	ctx := &Context{Results: []Result{
		{Value: "https://x.test/r1.png", Label: "#12 a red fox"},
		{Value: "https://x.test/r2.png", Label: "#9 a grey wolf"},
	}}
	e := focusedFrames(t, ctx, "")
	driveEditor(t, e, "ctrl+l", "down")
	ls := lines(t, e, 100)
	if l := lineWith(ls, "▸ 1"); !strings.Contains(l, "#12 a red fox") {
		t.Errorf("frame 1's line: %q", l)
	}
	if l := lineWith(ls, "key image"); !strings.HasPrefix(l, "     key image  #12 a red fox ") || !strings.HasSuffix(l, "result 1 of 2: #12 a red fox") {
		t.Errorf("the key image's row: %q", l)
	}
	driveEditor(t, e, "up", "ctrl+l", "down")
	if l := lineWith(lines(t, e, 100), "key image"); !strings.HasSuffix(l, "result 2 of 2: #9 a grey wolf") {
		t.Errorf("the second result: %q", l)
	}
	driveEditor(t, e, "up", "ctrl+l", "type:?x", "down")
	if l := lineWith(lines(t, e, 100), "key image"); !strings.Contains(l, "https://x.test/r1.png?x") || !strings.HasSuffix(l, "URL") {
		t.Errorf("a URL typed: %q", l)
	}
	if got, want := sent(t, e), `[{"key_image":"https://x.test/r1.png?x"}]`; got != want {
		t.Fatalf("sent %s, want %s", got, want)
	}
}

// What the form measured of a key image's file is said in its row, in
// error words when the file is refused.
func TestFramesViewFileInfo(t *testing.T) {
	e := focusedFrames(t, nil, "a.png", "b.png")
	driveEditor(t, e, "down")
	info := func(p string) (string, bool) {
		if p == "b.png" {
			return "not an image", true
		}
		return "", false
	}
	v := ansi.Strip(e.view(bareStyles(), 80, true, info))
	if l := lineWith(strings.Split(v, "\n"), "key image"); !strings.HasSuffix(l, "not an image") {
		t.Errorf("the key image's row: %q", l)
	}
	driveEditor(t, e, "pgup", "down")
	v = ansi.Strip(e.view(bareStyles(), 80, true, info))
	if l := lineWith(strings.Split(v, "\n"), "key image"); strings.TrimRight(l, " ") != "     key image  a.png" {
		t.Errorf("a file with nothing to say: %q", l)
	}
}
