package studio

import (
	"errors"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// What a task gives to send onward: its URL while it stays valid past the
// margin, else its saved file while it is on disk, else a reason; a clone
// gives its voice while the service keeps it.
func TestOnwardOfPrefersALiveURLThenTheFile(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	image := func(expires time.Time) record.Task {
		return record.Task{LocalID: 3, Operation: api.OpReference2Image, State: api.StateSuccess,
			Creations: []record.Creation{{Index: 0, URL: "https://x/r.png", URLExpiresAt: expires}}}
	}
	saved := []record.Download{{Index: 0, Kind: record.KindURL, URL: "https://x/r.png", Status: record.DownloadDone, Path: "/d/r.png"}}
	on := func(string) bool { return true }
	gone := func(string) bool { return false }
	cases := []struct {
		name   string
		t      record.Task
		dls    []record.Download
		exists func(string) bool
		value  string
		why    string
	}{
		{"live URL", image(now.Add(5 * time.Hour)), saved, on, "https://x/r.png", "the result URL (valid 5h)"},
		{"URL inside the margin", image(now.Add(5 * time.Minute)), saved, on, "/d/r.png", "the saved file (the URL lapses in 5m)"},
		{"URL valid for exactly the margin", image(now.Add(OnwardMargin)), saved, on, "https://x/r.png", "the result URL (valid 10m)"},
		{"URL lapsing in a minute", image(now.Add(time.Minute)), saved, on, "/d/r.png", "the saved file (the URL lapses in 1m)"},
		{"URL lapsing in seconds", image(now.Add(59 * time.Second)), saved, on, "/d/r.png", "the saved file (the URL lapses in under a minute)"},
		{"URL a second short of the margin", image(now.Add(OnwardMargin - time.Second)), saved, on, "/d/r.png", "the saved file (the URL lapses in 9m)"},
		{"expired URL", image(now.Add(-time.Minute)), saved, on, "/d/r.png", "the saved file (the URL expired)"},
		{"expired, file deleted", image(now.Add(-time.Minute)), saved, gone, "", "task #3 cannot be sent onward: the URL expired and its result was never saved here"},
		{"download failed", image(now.Add(5 * time.Hour)), []record.Download{{Index: 0, Kind: record.KindURL, URL: "https://x/r.png", Status: record.DownloadFailed}}, on, "", "never saved"},
		{"not finished", record.Task{LocalID: 3, Operation: api.OpImg2Video, State: api.StateProcessing}, nil, on, "", "has not succeeded (it is processing)"},
		{"no result", record.Task{LocalID: 3, Operation: api.OpImg2Video, State: api.StateSuccess}, nil, on, "", "has no result"},
	}
	for _, c := range cases {
		got, err := OnwardOf(c.t, c.dls, nil, now, c.exists)
		var nothing *NothingOnwardError
		switch {
		case c.value == "" && (!errors.As(err, &nothing) || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: %v, want a reason with %q", c.name, err, c.why)
		case c.value != "" && (err != nil || got.Value != c.value || got.Why != c.why || got.FromFile != strings.HasPrefix(c.value, "/")):
			t.Errorf("%s: %+v %v, want %s (%s)", c.name, got, err, c.value, c.why)
		}
	}
	clone := record.Task{LocalID: 4, Operation: api.OpAudioClone, State: api.StateSuccess, Request: []byte(`{"audio_url":"https://x/a.mp3","voice_id":"narrator_77"}`)}
	if got, err := OnwardOf(clone, nil, nil, now, on); err != nil || got.Value != "narrator_77" {
		t.Errorf("a clone: %+v %v", got, err)
	}
	old := []record.Voice{{VoiceID: "narrator_77", ExpiresAt: now.Add(-time.Hour)}}
	if _, err := OnwardOf(clone, nil, old, now, on); err == nil || !strings.Contains(err.Error(), "the service deleted at") {
		t.Errorf("an expired voice: %v", err)
	}
	old[0].Kept = true
	if _, err := OnwardOf(clone, nil, old, now, on); err != nil {
		t.Errorf("a kept voice does not expire: %v", err)
	}
}
