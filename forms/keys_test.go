package forms

import (
	"errors"
	"strings"
	"testing"

	"clapper/api"
	exteditor "clapper/internal/editor"
)

// A prompt takes ctrl+j as a new line; enter still moves on.
func TestPromptNewLineKey(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "one")
	press(f, "ctrl+j")
	typeText(f, "two")
	if got := f.Values()["prompt"]; got != "one\ntwo" {
		t.Fatalf("prompt %q, want a new line between the words", got)
	}
	press(f, "enter")
	if f.focusedName() == "prompt" {
		t.Fatal("enter must leave the prompt")
	}
}

// ctrl+e hands the text to $EDITOR in a command (nothing is run in
// Update); what the editor left replaces the text, and a failed editor
// keeps the text and says why.
func TestPromptEditorKey(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "draft")
	cmd := f.Update(keyPress("ctrl+e"))
	if cmd == nil {
		t.Fatal("ctrl+e started nothing")
	}
	if got := f.Values()["prompt"]; got != "draft" {
		t.Fatalf("ctrl+e changed the text before the editor ran: %q", got)
	}
	rev := f.Revision()
	f.Update(exteditor.EditedMsg{ID: "prompt", Text: "from\nthe editor"})
	if got := f.Values()["prompt"]; got != "from\nthe editor" {
		t.Fatalf("prompt %q after the editor", got)
	}
	if f.Revision() == rev {
		t.Fatal("the editor's text must count as a change (checked, kept as a draft)")
	}
	f.Update(exteditor.EditedMsg{ID: "prompt", Err: errors.New("exec: \"nosuch\": not found")})
	if got := f.Values()["prompt"]; got != "from\nthe editor" {
		t.Fatalf("a failed editor lost the text: %q", got)
	}
	if !strings.Contains(f.View(), "$EDITOR: exec") {
		t.Fatalf("the editor's failure is not shown:\n%s", f.View())
	}
}
