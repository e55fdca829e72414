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

// esc on a scene's prompt edited asks before the typed text goes: n goes on
// editing with the text as it was, y drops it; a prompt left as it was
// closes at once.
func TestScenePromptEscAsksOverAnEdit(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 80, 24)
	for _, k := range []string{"3", "enter", "down", "e"} {
		send(m, press(k))
	}
	ed := m.pages[pageScenes].(*scenesPage).editor
	if ed.prompt == nil {
		t.Fatalf("e did not open the scene's prompt:\n%s", screen(m))
	}
	send(m, press("esc"))
	if ed.prompt != nil || m.dialog() != nil {
		t.Fatalf("esc on a prompt not edited did not close it at once:\n%s", screen(m))
	}
	send(m, press("e"))
	typeText(m, " at dusk")
	typed := ed.prompt.area.Value()
	send(m, press("esc"))
	if ed.prompt == nil || !strings.Contains(screen(m), "Discard the edit of scene") {
		t.Fatalf("esc on an edited prompt did not ask:\n%s", screen(m))
	}
	send(m, press("n"))
	if ed.prompt == nil || ed.prompt.area.Value() != typed {
		t.Fatalf("n lost the edit:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("y"))
	if ed.prompt != nil {
		t.Fatalf("y kept the prompt open:\n%s", screen(m))
	}
	if !strings.Contains(screen(m), "e edit prompt") {
		t.Fatalf("not back in the scene editor:\n%s", screen(m))
	}
}

// ctrl+c (the only way out while a prompt takes the keys) over a scene's
// prompt edited asks first: n keeps the program and the text, y quits.
func TestQuitAsksOverAScenePromptEdited(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 80, 24)
	for _, k := range []string{"3", "enter", "down", "e"} {
		send(m, press(k))
	}
	typeText(m, " at dusk")
	send(m, press("ctrl+c"))
	if m.quitting || !strings.Contains(screen(m), "Quit without sending the edit of scene") {
		t.Fatalf("ctrl+c over an edited scene prompt did not ask:\n%s", screen(m))
	}
	send(m, press("n"))
	ed := m.pages[pageScenes].(*scenesPage).editor
	if m.quitting || ed.prompt == nil || !strings.HasSuffix(ed.prompt.area.Value(), " at dusk") {
		t.Fatalf("n lost the program or the text:\n%s", screen(m))
	}
	send(m, press("ctrl+c"))
	send(m, press("y"))
	if !m.quitting {
		t.Fatalf("y did not quit:\n%s", screen(m))
	}
}
