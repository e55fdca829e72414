package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// seedVoices records, against the real clock the command reads, a voice
// cloned ago for each name; a name in used was used in time (kept).
func seedVoices(t *testing.T, data string, ago map[string]time.Duration, used ...string) {
	t.Helper()
	ctx := context.Background()
	s, err := history.Open(filepath.Join(data, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	for id, d := range ago {
		if err := s.RecordVoice(ctx, record.Voice{VoiceID: id, CreatedAt: now.Add(-d)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range used {
		local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS, Body: fmt.Appendf(nil, `{"text":"hi","voice_setting_voice_id":%q}`, id)})
		if err != nil {
			t.Fatal(err)
		}
		task := fmt.Sprintf("tts-%d", i)
		if err := s.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: task, State: api.StateSuccess, CreatedAt: now.Add(-ago[id] + time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordVoiceUse(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
}

// The cron contract: exit 1 and the list when a voice expires within the
// window, 0 and silence when none does. Kept voices never count, nor do
// voices already gone.
func TestVoicesExpiringExitCodes(t *testing.T) {
	data := t.TempDir()
	seedVoices(t, data, map[string]time.Duration{
		"fresh_voice": time.Hour,                   // 167h left
		"soon_voice":  150 * time.Hour,             // 18h left
		"kept_voice":  160 * time.Hour,             // would have 8h left, but used in time
		"gone_voice":  200 * time.Hour,             // expired 32h ago
		"edge_voice":  120*time.Hour + time.Minute, // 47h59m left
	}, "kept_voice")

	r := runCLIData(t, data, "voices", "--expiring")
	if r.code != 1 || !strings.Contains(r.out, "soon_voice") || !strings.Contains(r.err, "1 voice expires within 24h") {
		t.Errorf("--expiring: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	for _, absent := range []string{"fresh_voice", "kept_voice", "gone_voice", "edge_voice"} {
		if strings.Contains(r.out, absent) {
			t.Errorf("--expiring lists %s:\n%s", absent, r.out)
		}
	}
	r = runCLIData(t, data, "voices", "--expiring", "--within", "48h", "--json")
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var v voiceLine
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if v.Kept || v.Expired || v.ExpiresAt == "" {
			t.Errorf("line %+v", v)
		}
		ids = append(ids, v.VoiceID)
	}
	if r.code != 1 || strings.Join(ids, ",") != "soon_voice,edge_voice" {
		t.Errorf("--within 48h --json: exit %d, %v", r.code, ids)
	}
	if r := runCLIData(t, data, "voices", "--expiring", "--within", "1h"); r.code != 0 || r.out != "" || r.err != "" {
		t.Errorf("nothing within 1h: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	if r := runCLIData(t, t.TempDir(), "voices", "--expiring"); r.code != 0 || r.out != "" {
		t.Errorf("no voices at all: exit %d, out %q", r.code, r.out)
	}
	// A history out of reach is neither: cron must not warn of voices.
	if r := runCLIData(t, t.TempDir(), "voices", "--expiring", "--history-url", "postgres://nobody@127.0.0.1:1/team?connect_timeout=2"); r.code != 3 || !strings.Contains(r.err, "127.0.0.1:1") {
		t.Errorf("history out of reach: exit %d, err %q; want 3 and the server named", r.code, r.err)
	}
	// The plain list shows every voice, kept and expired ones too, and
	// exits 0.
	r = runCLIData(t, data, "voices")
	for _, want := range []string{"fresh_voice", "(in 6 days)", "soon_voice", "use it soon", "kept_voice", "never (kept: used in time)", "gone_voice", "expired "} {
		if r.code != 0 || !strings.Contains(r.out, want) {
			t.Errorf("voices: exit %d, lacks %q:\n%s", r.code, want, r.out)
		}
	}
	// A voice forgotten here (or dropped by the service) is listed nowhere.
	s, err := history.Open(filepath.Join(data, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteVoice(context.Background(), "soon_voice"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, args := range [][]string{{"voices"}, {"voices", "--json"}, {"voices", "--expiring"}} {
		if r := runCLIData(t, data, args...); strings.Contains(r.out, "soon_voice") {
			t.Errorf("%v lists a forgotten voice:\n%s", args, r.out)
		}
	}
}

func TestVoicesUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"voices", "--within", "2h"}, "--within goes with --expiring"},
		{[]string{"voices", "--expiring", "--within", "0s"}, "--within must be a positive duration"},
		{[]string{"voices", "--expiring", "--within", "soon"}, "invalid argument"},
	} {
		if r := runCLIData(t, t.TempDir(), c.args...); r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
}

// The voices list names who used a voice last where the history knows it
// (a team's: user@machine), and names no one where it does not.
func TestVoicesNameWhoUsedThemLast(t *testing.T) {
	data := t.TempDir()
	ctx := context.Background()
	now := time.Now()
	for i, use := range []struct{ voice, by string }{{"team_voice", "ana@studio"}, {"own_voice", ""}} {
		s, err := history.Open(filepath.Join(data, "history.db"), history.WithSender("acct", use.by))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RecordVoice(ctx, record.Voice{VoiceID: use.voice, CreatedAt: now.Add(-2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS, Body: fmt.Appendf(nil, `{"text":"hi","voice_setting_voice_id":%q}`, use.voice)})
		if err != nil {
			t.Fatal(err)
		}
		task := fmt.Sprintf("tts-%d", i)
		if err := s.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: task, State: api.StateSuccess, CreatedAt: now.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordVoiceUse(ctx, task); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	r := runCLIData(t, data, "voices")
	var team, own string
	for _, l := range strings.Split(r.out, "\n") {
		switch {
		case strings.HasPrefix(l, "team_voice"):
			team = l
		case strings.HasPrefix(l, "own_voice"):
			own = l
		}
	}
	if r.code != 0 || !strings.Contains(team, " by ana@studio") || own == "" || strings.Contains(own, " by ") {
		t.Errorf("voices: exit %d; the team's voice should name ana@studio, the other no one:\n%s%s", r.code, r.out, r.err)
	}
}
