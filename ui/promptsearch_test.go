package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/record"
)

// openPromptSearch presses ctrl+p in the form and waits for the list.
func openPromptSearch(t *testing.T, m *Model, p *newPage, want string) {
	t.Helper()
	send(m, ctrl('p'))
	if !runUntil(m, nil, func() bool { return p.search != nil && strings.Contains(screen(m), want) }, 5*time.Second) {
		t.Fatalf("ctrl+p did not list %q:\n%s", want, screen(m))
	}
}

// before reports whether a shows above b on the screen.
func before(s, a, b string) bool {
	i, j := strings.Index(s, a), strings.Index(s, b)
	return i >= 0 && j >= 0 && i < j
}

// ctrl+p in a prompt lists earlier prompts of the operation newest first;
// typing narrows fuzzily; tab takes in every operation; ctrl+b stars (kept
// in history, so first on reopening); enter puts the prompt in the field.
func TestPromptSearchKeys(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	openPromptSearch(t, m, p, "a red fox in fresh snow")
	sc := screen(m)
	if !before(sc, "a whale breaching", "neon city in the rain") || !before(sc, "neon city in the rain", "a red fox in fresh snow") {
		t.Fatalf("earlier prompts are not newest first:\n%s", sc)
	}
	if strings.Contains(sc, "a cat astronaut") || strings.Contains(sc, "Hello there") {
		t.Fatalf("prompts of other operations listed before tab:\n%s", sc)
	}
	if !strings.Contains(sc, "tab all operations") || !strings.Contains(sc, "ctrl+b star") {
		t.Fatalf("the help does not name the search's keys:\n%s", sc)
	}
	typeText(m, "fxsn")
	if sc := screen(m); !strings.Contains(sc, "a red fox in fresh snow") || strings.Contains(sc, "neon city") || strings.Contains(sc, "a whale") {
		t.Fatalf("fxsn did not narrow to the fox:\n%s", sc)
	}
	for range 4 {
		send(m, press("backspace"))
	}
	send(m, press("tab"))
	if !runUntil(m, nil, func() bool { return strings.Contains(screen(m), "a cat astronaut, studio light") }, 5*time.Second) {
		t.Fatalf("tab did not take in every operation:\n%s", screen(m))
	}
	if sc := screen(m); !strings.Contains(sc, "Hello there, friend") || !strings.Contains(sc, "all operations") {
		t.Fatalf("all operations misses the speech text:\n%s", sc)
	}
	send(m, press("tab"))
	if !runUntil(m, nil, func() bool { return !strings.Contains(screen(m), "a cat astronaut") }, 5*time.Second) {
		t.Fatalf("tab again did not go back to text2video:\n%s", screen(m))
	}
	// Star the fox: down to it (the newest is first), ctrl+b.
	typeText(m, "fox")
	send(m, ctrl('b'))
	if !runUntil(m, nil, func() bool { return strings.Contains(screen(m), "★ a red fox in fresh snow") }, 5*time.Second) {
		t.Fatalf("ctrl+b did not star the fox:\n%s", screen(m))
	}
	send(m, press("esc"))
	if p.search != nil || !strings.Contains(screen(m), "prompt") {
		t.Fatalf("esc did not close the search:\n%s", screen(m))
	}
	if v := p.form.Values()["prompt"]; v != nil {
		t.Fatalf("esc put %v in the prompt", v)
	}
	openPromptSearch(t, m, p, "★ a red fox in fresh snow")
	if sc := screen(m); !before(sc, "★ a red fox", "a whale breaching") {
		t.Fatalf("the starred prompt is not first on reopening:\n%s", sc)
	}
	ps, err := s.Record().SearchPrompts(context.Background(), record.PromptQuery{Operation: api.OpText2Video})
	if err != nil || len(ps) == 0 || !ps[0].Starred || ps[0].Text != "a red fox in fresh snow" {
		t.Fatalf("the star is not kept in history: %+v %v", ps, err)
	}
	send(m, press("enter"))
	if !runUntil(m, nil, func() bool { return p.form.Values()["prompt"] == "a red fox in fresh snow" }, 5*time.Second) {
		t.Fatalf("enter did not fill the prompt: %v\n%s", p.form.Values()["prompt"], screen(m))
	}
	if p.search != nil || !strings.Contains(screen(m), "a red fox in fresh snow") {
		t.Fatalf("the filled form is not shown:\n%s", screen(m))
	}
	// ctrl+b again (unstar) from a new search, and the star goes.
	openPromptSearch(t, m, p, "★ a red fox")
	send(m, ctrl('b'))
	if !runUntil(m, nil, func() bool { return !strings.Contains(screen(m), "★") }, 5*time.Second) {
		t.Fatalf("ctrl+b did not unstar:\n%s", screen(m))
	}
}

// Over typed text, a chosen prompt asks: r replaces, a adds it after, esc
// keeps what is typed.
func TestPromptSearchAsksOverTypedText(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, pasteMsg("my own words"))
	for _, c := range []struct {
		key, want string
	}{
		{"esc", "my own words"},
		{"a", "my own words a whale breaching at sunrise"},
		{"r", "a whale breaching at sunrise"},
	} {
		openPromptSearch(t, m, p, "a whale breaching at sunrise")
		send(m, press("enter"))
		if m.dialog() == nil || !strings.Contains(screen(m), "holds typed text") {
			t.Fatalf("a prompt over typed text must ask:\n%s", screen(m))
		}
		send(m, press(c.key))
		if !runUntil(m, nil, func() bool { return p.form.Values()["prompt"] == c.want }, 5*time.Second) {
			t.Fatalf("%s: prompt %q, want %q", c.key, p.form.Values()["prompt"], c.want)
		}
	}
}

// The search at both sizes, starred prompt and all.
func TestPromptSearchScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m, s := newTestModel(t, size.w, size.h)
			if err := s.Record().StarPrompt(context.Background(), "a red fox in fresh snow", true, testNow); err != nil {
				t.Fatal(err)
			}
			p := showForm(t, m, api.OpText2Video, "svcq3-pro")
			openPromptSearch(t, m, p, "a whale breaching")
			snapshot(t, m)
		})
	}
}

// The letters a pattern matched are drawn apart from the rest of the
// prompt: the first of each in turn.
func TestPromptSearchHighlightsTheMatch(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	openPromptSearch(t, m, p, "a red fox in fresh snow")
	typeText(m, "RFX")
	if !runUntil(m, nil, func() bool { return !strings.Contains(screen(m), "a whale") }, 5*time.Second) {
		t.Fatalf("RFX did not narrow:\n%s", screen(m))
	}
	row := ""
	for _, line := range strings.Split(m.View().Content, "\n") {
		if strings.Contains(ansi.Strip(line), "a red fox in fresh snow") {
			row = line
		}
	}
	// r, f and x are drawn on their own (split from the text around
	// them), the rest as the row.
	if row == "" || strings.Contains(row, "red") || strings.Contains(row, "fox") || !strings.Contains(row, "ed ") {
		t.Fatalf("the row is not drawn with its match:\n%q", row)
	}
	if plain := p.search.highlight("a red fox", p.env.theme.Selected); plain == p.env.theme.Selected.Render("a red fox") || ansi.Strip(plain) != "a red fox" {
		t.Fatalf("the matched letters are not drawn apart: %q", plain)
	}
}

// f1 over the earlier prompts names them and lists their keys, not the New
// page's: esc closes the help and leaves the search open.
func TestPromptSearchHelpIsItsOwn(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	openPromptSearch(t, m, p, "a red fox in fresh snow")
	send(m, press("f1"))
	sc := screen(m)
	if !strings.Contains(sc, "Keys: earlier prompts") || strings.Contains(sc, "Keys: New") || !strings.Contains(sc, "all operations") {
		t.Fatalf("f1 over the earlier prompts:\n%s", sc)
	}
	send(m, press("esc"))
	if p.search == nil || !strings.Contains(screen(m), "a red fox in fresh snow") {
		t.Fatalf("esc left the help but not to the search:\n%s", screen(m))
	}
}
