package forms

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"clapper/api"
)

// The review shows the day's and month's spending beside the price, and a
// request that would pass a credit cap is sent only after y (n keeps it).
func TestReviewAsksBeforePassingACreditCap(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	over := ""
	f.ctx.Spending = func(api.Operation, map[string]any) (string, string) {
		return "150 credits today of 200 · 900 credits this month", over
	}
	focus(t, f, "prompt")
	typeText(f, "a fox")
	press(f, "ctrl+s")
	if view := f.View(); !strings.Contains(view, "150 credits today of 200") {
		t.Fatalf("the review does not show the spending:\n%s", view)
	}
	if msgs := expect(f, "enter"); len(msgs) != 1 {
		t.Fatalf("under the caps enter sends at once: %#v", msgs)
	}
	over = "not sent: the daily credit cap is 200 credits and tasks have cost 150 credits today; this request costs 80 more"
	press(f, "esc")
	typeText(f, " in snow")
	press(f, "ctrl+s")
	if view := f.View(); !strings.Contains(view, "past a credit cap · enter asks first") {
		t.Fatalf("the review does not warn before enter:\n%s", view)
	}
	if msgs := expect(f, "enter"); len(msgs) != 0 || !f.review.confirming {
		t.Fatalf("enter past a cap must ask first: %#v", msgs)
	}
	if view := f.View(); !strings.Contains(view, "Send past a credit cap?") || !strings.Contains(view, "The daily credit cap is 200 credits") {
		t.Fatalf("the question does not name the cap:\n%s", view)
	}
	if msgs := expect(f, "n"); len(msgs) != 0 || f.review.confirming {
		t.Fatalf("n must not send: %#v", msgs)
	}
	expect(f, "enter")
	msgs := expect(f, "y")
	if len(msgs) != 1 || msgs[0].(SubmitMsg).Forced {
		t.Fatalf("y must send it, not as a request the catalog refuses: %#v", msgs)
	}
}

// On a short terminal the review shows the rules a request breaks before
// its body, so both reasons of a reference2video without prompt or images
// are on screen without scrolling.
func TestReviewShowsBrokenRulesFirst(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq1")
	f.SetSize(80, 19) // the New page's share of an 80x24 terminal
	press(f, "ctrl+s")
	view := f.View()
	for _, want := range []string{"2 rules broken", "✗ prompt: required", "✗ images: give images"} {
		if !strings.Contains(view, want) {
			t.Errorf("%q is not on the first screen of the review:\n%s", want, view)
		}
	}
	if strings.Index(view, "✗ images") > strings.Index(view, `"model": "svcq1"`) {
		t.Errorf("the body comes before the broken rules:\n%s", view)
	}
}

// A price too long for the line (the live service's "unknown: no earlier
// ..." names the like task it looked for) is wrapped under its label at 80
// columns, not cut.
func TestReviewWrapsALongPrice(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	f.SetSize(80, 19)
	cost := "unknown: no earlier text2video svcq3-pro duration 5, resolution 720p, off_peak no in history (the service publishes no price table)"
	f.ctx.Quote = func(api.Operation, map[string]any) string { return cost }
	focus(t, f, "prompt")
	typeText(f, "a fox")
	press(f, "ctrl+s")
	view := f.View()
	if flat := strings.Join(strings.Fields(view), " "); !strings.Contains(flat, "Cost "+cost) {
		t.Errorf("the price is not whole:\n%s", view)
	}
	for _, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
}
