package ui

import (
	"strings"
	"testing"
	"time"

	"clapper/api"
)

// v on the review of an operation without a seed offers values only: its
// dialog names no count of seeded versions, and an empty answer is refused
// with what to give.
func TestVariationsWithoutASeedOfferValuesOnly(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpAudioTTS, "")
	for p.form.FocusedField() != "text" {
		send(m, press("tab"))
	}
	send(m, pasteMsg("hello there, friend"))
	for p.form.FocusedField() != "voice_setting_voice_id" {
		send(m, press("tab"))
	}
	send(m, pasteMsg("narrator_1"))
	if !runUntil(m, nil, func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v\n%s", p.form.Check().Broken, screen(m))
	}
	send(m, ctrl('s'))
	send(m, press("v"))
	scr := screen(m)
	if !strings.Contains(scr, "audio-tts takes no seed") || strings.Contains(scr, "own seed") {
		t.Fatalf("the dialog must offer values only:\n%s", scr)
	}
	send(m, press("enter"))
	if scr := screen(m); !strings.Contains(scr, "give field=a|b|c") {
		t.Fatalf("an empty answer must say what to give:\n%s", scr)
	}
}
