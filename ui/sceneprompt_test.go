package ui

import (
	"strings"
	"testing"
	"time"
)

// ctrl+p in a scene's prompt lists earlier prompts too; enter puts one in
// place of the text, which ctrl+z puts back; esc closes the search and
// leaves the prompt open.
func TestScenePromptEarlierPrompts(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 80, 24)
	for _, k := range []string{"3", "enter", "down", "e"} {
		send(m, press(k))
	}
	ed := m.pages[pageScenes].(*scenesPage).editor
	if ed.prompt == nil {
		t.Fatalf("e did not open the scene's prompt:\n%s", screen(m))
	}
	before := ed.prompt.area.Value()
	send(m, ctrl('p'))
	if !runUntil(m, nil, func() bool { return strings.Contains(screen(m), "a lighthouse keeper's day") }, 5*time.Second) {
		t.Fatalf("ctrl+p did not list the job's prompt:\n%s", screen(m))
	}
	send(m, press("esc"))
	if ed.prompt == nil || ed.prompt.search != nil {
		t.Fatal("esc must close the search and keep the prompt open")
	}
	send(m, ctrl('p'))
	if !runUntil(m, nil, func() bool { return strings.Contains(screen(m), "a lighthouse keeper's day") }, 5*time.Second) {
		t.Fatalf("ctrl+p did not list the job's prompt again:\n%s", screen(m))
	}
	send(m, press("enter"))
	if got := ed.prompt.area.Value(); got != "a lighthouse keeper's day" {
		t.Fatalf("enter put %q in the scene's prompt", got)
	}
	if !strings.Contains(screen(m), "ctrl+z puts it back") {
		t.Fatalf("the replaced text is not offered back:\n%s", screen(m))
	}
	send(m, ctrl('z'))
	if got := ed.prompt.area.Value(); got != before {
		t.Fatalf("ctrl+z put back %q, want %q", got, before)
	}
}
