package record

import (
	"strings"
	"testing"

	"clapper/api"
)

// A state: word is a state a task can be in; anything else is named with
// the states there are, never searched as an empty list.
func TestSearchTakesOnlyStatesThereAre(t *testing.T) {
	for _, st := range []string{"created", "queueing", "processing", "success", "failed", "submitting", "rejected", "abandoned", "FAILED"} {
		f, err := ParseSearch("fox state:" + st)
		if err != nil || len(f.States) != 1 || f.States[0] != strings.ToLower(st) || f.Text != "fox" {
			t.Errorf("state:%s: %+v, %v", st, f, err)
		}
	}
	if f, err := ParseSearch("state:unknown"); err != nil || len(f.States) != 1 || f.States[0] != StateSubmitting {
		t.Errorf("state:unknown (a submission of unknown outcome): %+v, %v", f.States, err)
	}
	for _, bad := range []string{"state:bogus", "state:done", "state:running"} {
		_, err := ParseSearch(bad)
		if err == nil || !strings.Contains(err.Error(), bad+": a state is one of created, queueing, processing, success, failed") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// op: takes an operation as the service spells it or with '_' for '-'.
func TestSearchTakesBothSpellingsOfAnOperation(t *testing.T) {
	for in, want := range map[string]api.Operation{"op:premium-mv": api.OpPremiumMV, "op:premium_mv": api.OpPremiumMV,
		"op:start_end2video": api.OpStartEnd2Video, "op:Lip-Sync": api.OpLipSync, "operation:audio_tts": api.OpAudioTTS} {
		f, err := ParseSearch(in)
		if err != nil || len(f.Operations) != 1 || f.Operations[0] != want {
			t.Errorf("%s: %+v, %v", in, f.Operations, err)
		}
	}
	if _, err := ParseSearch("op:premium"); err == nil || !strings.Contains(err.Error(), "choose one of") {
		t.Errorf("op:premium: %v", err)
	}
}

// set:N and is:keeper search the sets; a set that is no number, or an is:
// other than keeper, is named with what it takes.
func TestSearchTakesSetsAndKeepers(t *testing.T) {
	f, err := ParseSearch("fox set:12 is:keeper")
	if err != nil || f.SetID != 12 || !f.Keeper || f.Text != "fox" {
		t.Fatalf("%+v, %v", f, err)
	}
	for bad, want := range map[string]string{"set:x": "set:x: a set is its number", "set:0": "set:0: a set is its number", "is:done": "is:done: is: takes keeper"} {
		if _, err := ParseSearch(bad); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A field with no value (by: typed before its name) is named with what it
// takes, not searched for as a word that nothing holds.
func TestSearchFieldWithoutValueIsNamed(t *testing.T) {
	for _, c := range []struct{ query, field string }{
		{"fox by:", "by"}, {"state:", "state"}, {"op: fox", "op"}, {"FROM:", "from"},
	} {
		if _, err := ParseSearch(c.query); err == nil || !strings.HasPrefix(err.Error(), c.field+": needs a value, as ") {
			t.Errorf("%q: %v, want %s: named with an example", c.query, err, c.field)
		}
	}
	if f, err := ParseSearch("ratio: 16:9"); err != nil || f.Text != "ratio: 16:9" {
		t.Errorf("words with colons: %+v, %v", f, err)
	}
}
