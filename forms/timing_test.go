package forms

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"clapper/api/catalog"
)

var timingField = catalog.Field{Name: "timing_prompts", Kind: catalog.KindTimingPrompts, Required: true, MinItems: 1}

func TestTimingEditorByKeys(t *testing.T) {
	e := newTimingEditor(&Context{}, timingField)
	e.Focus()
	// A new event opens on its prompt, 0-2 s.
	driveEditor(t, e, "ctrl+n", "type:door slams")
	// Times: from +0.5 s by five steps, to +1 s, then the whole bar +1 s.
	driveEditor(t, e, "up", "right", "right", "right", "right", "right", "space", "shift+right", "space", "shift+right")
	// A second event after the first's end; its from typed by hand.
	driveEditor(t, e, "ctrl+n", "type:rain", "up", "type:2.5")
	want := []any{
		map[string]any{"from": 1.5, "to": 4.0, "prompt": "door slams"},
		map[string]any{"from": 2.5, "to": 6.0, "prompt": "rain"},
	}
	if got := e.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Value:\n got %#v\nwant %#v", got, want)
	}
	if c := e.Counter(); c != "events 2" {
		t.Errorf("Counter = %q", c)
	}
	// Backspace edits the typed number; an empty one brings back the value
	// from before typing (the new event started at the first's end, 4).
	driveEditor(t, e, "backspace")
	if ev := e.events[1]; ev.from != 2 {
		t.Errorf("from after a backspace = %v, want 2", ev.from)
	}
	driveEditor(t, e, "backspace", "backspace")
	if ev := e.events[1]; ev.from != 4 {
		t.Errorf("from after clearing the typed number = %v, want 4 back", ev.from)
	}
}

func TestTimingKeysStopAtTheDuration(t *testing.T) {
	e := newTimingEditor(&Context{}, timingField)
	e.SetDuration(5)
	e.Set([]any{map[string]any{"from": 3.0, "to": 4.5, "prompt": "x"}})
	e.Focus()
	driveEditor(t, e, "space", "shift+right", "shift+right")
	if ev := e.events[0]; ev.to != 5 {
		t.Fatalf("to = %v, want a stop at the duration 5", ev.to)
	}
	if v := strings.Join(viewLines(e, 76), "\n"); !strings.Contains(v, "to stops at the duration (5 s)") {
		t.Errorf("the stop is not said:\n%s", v)
	}
	// Typed, a value past the duration is taken as it is, and marked.
	driveEditor(t, e, "type:7")
	if ev := e.events[0]; ev.to != 7 {
		t.Fatalf("typed to = %v, want 7", ev.to)
	}
	// The left edge never goes below 0 nor past to.
	driveEditor(t, e, "space", "space", "shift+left", "shift+left", "shift+left", "shift+left")
	if ev := e.events[0]; ev.from != 0 {
		t.Errorf("from = %v, want 0", ev.from)
	}
}

func TestTimingRoundTrip(t *testing.T) {
	in := []any{
		map[string]any{"from": json.Number("0.5"), "to": json.Number("2"), "prompt": "door"},
		map[string]any{"from": 1.0, "to": 3.25, "prompt": "", "gain": 2.0},
		map[string]any{"from": "soon", "prompt": 7.0},
		"not an event",
	}
	want := []any{
		map[string]any{"from": 0.5, "to": 2.0, "prompt": "door"},
		map[string]any{"from": 1.0, "to": 3.25, "prompt": "", "gain": 2.0},
		map[string]any{"from": "soon", "prompt": 7.0},
		"not an event",
	}
	e := newTimingEditor(&Context{}, timingField)
	e.Set(in)
	got := e.Value()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Set→Value:\n got %#v\nwant %#v", got, want)
	}
	e.Set(got)
	if again := e.Value(); !reflect.DeepEqual(again, want) {
		t.Fatalf("second round:\n got %#v\nwant %#v", again, want)
	}
	if _, ok := e.Value().([]any)[0].(map[string]any)["from"].(float64); !ok {
		t.Error("from is not a float64")
	}
	e.Set(nil)
	if e.Value() != nil {
		t.Error("empty Value is not nil")
	}
}

func TestTimingShowsOverlapAndPastDuration(t *testing.T) {
	e := newTimingEditor(&Context{}, timingField)
	e.Set([]any{
		map[string]any{"from": 0.0, "to": 2.0, "prompt": "door slams"},
		map[string]any{"from": 1.5, "to": 6.0, "prompt": "rain"},
		map[string]any{"from": 7.0, "to": 8.0, "prompt": "thunder"},
	})
	v := strings.Join(viewLines(e, 76), "\n")
	for _, want := range []string{"▓", "▲", "overlap 1.5–2 s"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	lanes := strings.Split(v, "\n")
	if strings.Contains(lanes[3], "▓") {
		t.Errorf("the lone third event is drawn as overlapping:\n%s", v)
	}
	if strings.Contains(v, "▒") || strings.Contains(v, "past") {
		t.Errorf("an event within the duration is marked past it:\n%s", v)
	}
	e.SetDuration(5)
	v = strings.Join(viewLines(e, 76), "\n")
	for _, want := range []string{"▒", "✗ past 5 s"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q once the duration is 5:\n%s", want, v)
		}
	}
	if got := e.Value().([]any)[2].(map[string]any)["to"]; got != 8.0 {
		t.Errorf("an event past the duration was changed: to = %v", got)
	}
}

func TestTimingOwnsKey(t *testing.T) {
	e := newTimingEditor(&Context{}, timingField)
	e.Set([]any{map[string]any{"from": 0.0, "to": 1.0, "prompt": "a"}})
	e.Focus()
	for _, k := range []string{"tab", "shift+tab", "ctrl+s", "esc"} {
		if e.OwnsKey(keyOf(k)) {
			t.Errorf("claims the form's %s", k)
		}
	}
	if e.OwnsKey(keyOf("up")) || !e.OwnsKey(keyOf("left")) || !e.OwnsKey(keyOf("down")) {
		t.Error("up at the top, or left/down on the times, misclaimed")
	}
	driveEditor(t, e, "down")
	if e.OwnsKey(keyOf("left")) {
		t.Error("claims left on the prompt row, where it moves the text cursor")
	}
}

// TestTimingView renders the timeline at the form's two widths; read
// testdata/TestTimingView/* by eye.
func TestTimingView(t *testing.T) {
	for _, width := range []int{76, 136} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			e := newTimingEditor(&Context{}, timingField)
			e.Set([]any{
				map[string]any{"from": 0.0, "to": 2.0, "prompt": "a heavy wooden door slams shut in an empty hall"},
				map[string]any{"from": 1.5, "to": 6.0, "prompt": "steady rain on a tin roof"},
				map[string]any{"from": 5.0, "to": 7.5, "prompt": "distant thunder"},
				map[string]any{"from": 8.0, "to": 8.0, "prompt": ""},
			})
			e.Focus()
			st := bareStyles()
			var out strings.Builder
			frame := func(title string, focused bool) {
				v := ansi.Strip(e.View(st, width, focused))
				checkWidth(t, v, width)
				fmt.Fprintf(&out, "── %s · %s\n%s\n\n", title, e.Counter(), v)
			}
			driveEditor(t, e, "down", "down", "space", "type:6.")
			frame("second event, typing its to", true)
			driveEditor(t, e, "up", "ctrl+x")
			frame("first event removed", true)
			driveEditor(t, e, "ctrl+z")
			e.SetDuration(7)
			driveEditor(t, e, "pgdown", "down", "down", "down", "down")
			frame("duration 7: the third event runs past it", true)
			e.Blur()
			frame("blurred", false)
			golden.RequireEqual(t, out.String())
		})
	}
}
