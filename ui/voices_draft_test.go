package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// t on a voice over a speech draft left with the cursor on its pitch: the
// voice is set, and what the user types next goes into the text, where
// the cursor now is, not into the pitch.
func TestSpeakFromVoicesOverADraftTypesIntoTheText(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	m := New(s, func() time.Time { return testNow }, nil)
	seedVoices(t, m, standardVoices())
	drafts := filepath.Join(s.Config.DataDir, "drafts")
	if err := os.MkdirAll(drafts, 0o700); err != nil {
		t.Fatal(err)
	}
	draft := `{"op":"audio-tts","values":{"text":"hello","voice_setting_voice_id":"fresh_narrator","voice_setting_pitch":2},"focus":"voice_setting_pitch"}`
	if err := os.WriteFile(filepath.Join(drafts, "audio-tts.json"), []byte(draft), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := runningOn(t, m, 100, 30)
	tm.Send(press("4"))
	waitScreen(t, tm, "last_call_voice")
	tm.Send(press("t")) // the first voice, counting down soonest
	waitScreen(t, tm, "pitch")
	for _, k := range []string{"end", " ", "w", "o", "r", "l", "d"} {
		tm.Send(press(k))
	}
	tm.Send(press("esc"))
	waitScreen(t, tm, "open")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got, err := os.ReadFile(filepath.Join(drafts, "audio-tts.json"))
	if err != nil || !strings.Contains(string(got), `"text": "hello world"`) || !strings.Contains(string(got), `"voice_setting_voice_id": "last_call_voice"`) ||
		!strings.Contains(string(got), `"voice_setting_pitch": 2`) {
		t.Errorf("the draft after typing: %s (%v)", got, err)
	}
}
