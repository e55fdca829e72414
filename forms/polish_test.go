package forms

import (
	"fmt"
	"strings"
	"testing"

	"clapper/api"
)

// ctrl+f on a request the catalog refuses asks before sending it; when it
// also passes a credit cap, y sends it past the cap too, so the question
// says so (issue 32).
func TestForceSendNamesTheCreditCap(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	f.ctx.Spending = func(api.Operation, map[string]any) (string, string) {
		return "150 credits today of 200", "not sent: the daily credit cap is 200 credits and tasks have cost 150 credits today; this request costs 80 more"
	}
	settle(f, f.Apply(map[string]any{"prompt": "a fox", "duration": 99}))
	syncCheck(f)
	press(f, "ctrl+s")
	if view := f.View(); !strings.Contains(view, "the catalog refuses it · ! past a credit cap") {
		t.Fatalf("the review of a refused request past a cap does not say both:\n%s", view)
	}
	if msgs := expect(f, "ctrl+f"); len(msgs) != 0 || !f.review.confirming {
		t.Fatalf("ctrl+f must ask first: %#v", msgs)
	}
	view := f.View()
	for _, want := range []string{"Send a request the catalog refuses, past a credit cap?", "It also passes a credit cap: the daily credit cap is 200 credits"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the question does not say %q:\n%s", want, view)
		}
	}
	msgs := expect(f, "y")
	if len(msgs) != 1 || !msgs[0].(SubmitMsg).Forced || !msgs[0].(SubmitMsg).OverCap {
		t.Fatalf("y sends it forced and past the cap: %#v", msgs)
	}
}

// Under the cap, the same question names no cap.
func TestForceSendUnderTheCapsNamesNone(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	settle(f, f.Apply(map[string]any{"prompt": "a fox", "duration": 99}))
	syncCheck(f)
	press(f, "ctrl+s", "ctrl+f")
	if view := f.View(); !strings.Contains(view, "Send a request the catalog refuses?") || strings.Contains(view, "credit cap") {
		t.Fatalf("a request under the caps is asked about as refused only:\n%s", view)
	}
}

// With uploads (the setting always, or auto past 20 MB), the review shows
// each image as the upload sent in its place, not as the inline data URI
// that is not sent (issue 32).
func TestReviewShowsTheUploadThatIsSent(t *testing.T) {
	for _, uploading := range []bool{false, true} {
		f := newTestForm(t, api.OpImg2Video, "svcq3-turbo")
		f.ctx.Uploading = func(int) bool { return uploading }
		img := writePNG(t, f.ctx.Dir, "cat.png", 64, 64)
		settle(f, f.Apply(map[string]any{"prompt": "a cat", "images": []any{img}}))
		syncCheck(f)
		press(f, "ctrl+s")
		view := f.View()
		inline, upload := strings.Contains(view, `"data:image/png;base64,…`), strings.Contains(view, `"ssupload:?id=… (uploaded before sending: image/png,`)
		if uploading != upload || uploading == inline {
			t.Fatalf("uploading %v: the review shows the inline URI %v, the upload %v:\n%s", uploading, inline, upload, view)
		}
		// The size is the body as sent: the uploads' URIs in it, the
		// images' bytes gone first.
		inlined := api.ByteSize(int64(f.check.Size)) + " of 20 MB"
		sent := fmt.Sprintf("of 20 MB, after %s of images uploaded", api.ByteSize(int64(f.check.Size-len(`{"images":[""],"model":"svcq3-turbo","prompt":"a cat"}`)-len("data:image/png;base64,"))*3/4))
		if got := strings.Contains(view, inlined); got == uploading {
			t.Errorf("uploading %v: the review says the inlined %q: %v\n%s", uploading, inlined, got, view)
		}
		if got := strings.Contains(view, sent); got != uploading {
			t.Errorf("uploading %v: the review says %q: %v\n%s", uploading, sent, got, view)
		}
	}
}

// A draft on a model the catalog no longer knows (catalog.json broke) is
// not sent on another model: the request names the draft's model, the
// check refuses it by name, enter sends nothing; a model chosen on the
// form is then the one sent (issue 32).
func TestDraftOnAModelTheCatalogDoesNotKnow(t *testing.T) {
	ctx := &Context{Dir: t.TempDir()}
	f, err := Restore(ctx, testStyles(), Draft{Op: api.OpText2Video, Model: "svcq5", Values: map[string]any{"model": "svcq5", "prompt": "a red fox"}})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(100, 40)
	f.Init()
	syncCheck(f)
	press(f, "ctrl+s")
	view := f.View()
	for _, want := range []string{"Review · text2video · svcq5", `✗ model: text2video has no model "svcq5"`, `"model": "svcq5"`} {
		if !strings.Contains(view, want) {
			t.Fatalf("the review does not say %q:\n%s", want, view)
		}
	}
	if msgs := expect(f, "enter"); len(msgs) != 0 {
		t.Fatalf("enter sent a request on a model the catalog does not know: %#v", msgs)
	}
	press(f, "esc")
	focus(t, f, "model")
	press(f, "right")
	press(f, "ctrl+s")
	msgs := expect(f, "enter")
	if len(msgs) != 1 {
		t.Fatalf("a model chosen on the form is sent: %#v\n%s", msgs, f.View())
	}
	if sub := msgs[0].(SubmitMsg); sub.Body["model"] != f.Model() || sub.Model == "svcq5" {
		t.Fatalf("sent on %v (form on %s)", sub.Body["model"], f.Model())
	}
}

// The subjects editor's full help lists its keys that work elsewhere in
// it (ctrl+l on a voice or a server id, ctrl+z after a removal, ctrl+r in
// the prompt), wherever the cursor is in it; its help line keeps to what
// works here (issue 32).
func TestSubjectsHelpListsEveryKey(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq1")
	focus(t, f, "subjects")
	var full, short []string
	for _, b := range f.FullHelp()[0] {
		full = append(full, b.Help().Key+" "+b.Help().Desc)
	}
	for _, b := range f.ShortHelp() {
		short = append(short, b.Help().Key)
	}
	got := strings.Join(full, " · ")
	for _, want := range []string{"ctrl+l next voice or stored subject", "ctrl+z undo a removal", "ctrl+r in the prompt: insert [@name]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the full help lacks %q: %s", want, got)
		}
	}
	if line := strings.Join(short, " "); strings.Contains(line, "ctrl+z") || strings.Contains(line, "ctrl+r") {
		t.Errorf("the help line lists keys that do nothing here: %s", line)
	}
}
