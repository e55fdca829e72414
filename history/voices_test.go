package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func voiceIDs(vs []record.Voice) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.VoiceID)
	}
	return out
}

// speak records a speech synthesis with voiceID that the service created at
// at and answered in state; its task id is returned.
func speak(t *testing.T, s *Store, voiceID string, at time.Time, state string) string {
	t.Helper()
	ctx := context.Background()
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS,
		Body: fmt.Appendf(nil, `{"text":"hello","voice_setting_voice_id":%q}`, voiceID)})
	if err != nil {
		t.Fatal(err)
	}
	taskID := fmt.Sprintf("tts-%d", id)
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: taskID, State: state, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	return taskID
}

func voice(t *testing.T, s *Store, id string) record.Voice {
	t.Helper()
	vs, err := s.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.VoiceID == id {
			return v
		}
	}
	t.Fatalf("no voice %q in %v", id, voiceIDs(vs))
	return record.Voice{}
}

func TestRecordVoice(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "narrator01", CloneTaskID: "tk-c", DemoAudio: "https://r/demo.wav"}); err != nil {
		t.Fatal(err)
	}
	vs, err := s.Voices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := record.Voice{VoiceID: "narrator01", CloneTaskID: "tk-c", CreatedAt: t0, DemoAudio: "https://r/demo.wav",
		ExpiresAt: t0.Add(168 * time.Hour)}
	if len(vs) != 1 || vs[0] != want {
		t.Fatalf("voices %+v, want %+v", vs, want)
	}
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "narrator01"}); !errors.Is(err, record.ErrConflict) {
		t.Errorf("duplicate voice: %v", err)
	}
	if err := s.RecordVoice(ctx, record.Voice{}); err == nil {
		t.Error("recorded a voice without an id")
	}
	// Once the service has dropped the voice, its id may be cloned again.
	clk.Advance(168 * time.Hour)
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "narrator01", CloneTaskID: "tk-d"}); err != nil {
		t.Fatalf("re-cloning an expired id: %v", err)
	}
	if err := s.DeleteVoice(ctx, "narrator01"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "narrator01", CloneTaskID: "tk-e"}); err != nil {
		t.Fatalf("re-cloning a deleted id: %v", err)
	}
	vs, _ = s.Voices(ctx)
	if len(vs) != 1 || vs[0].CloneTaskID != "tk-e" || vs[0].Deleted || !vs[0].CreatedAt.Equal(clk.Now()) {
		t.Errorf("after re-cloning: %+v", vs)
	}
	if err := s.DeleteVoice(ctx, "ghost"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("deleting an unknown voice: %v", err)
	}
	// A kept voice is the service's for good: its id is never free again.
	speak(t, s, "narrator01", clk.Now().Add(time.Hour), api.StateSuccess)
	if err := s.RecordVoiceUse(ctx, "tts-1"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(1000 * time.Hour)
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "narrator01"}); !errors.Is(err, record.ErrConflict) {
		t.Errorf("re-cloning a kept id: %v", err)
	}
}

// The spec: a cloned voice "is deleted unless it is used in speech
// synthesis within 168 hours". A use one minute before the deadline keeps it
// for good; a use one second after it (or at it) saves nothing.
func TestVoiceKeptOnlyWhenUsedWithin168Hours(t *testing.T) {
	for _, c := range []struct {
		name    string
		usedAt  time.Duration // after cloning
		kept    bool
		expired bool // a year on
	}{
		{"used at 1h", time.Hour, true, false},
		{"used at 167h59m", 167*time.Hour + 59*time.Minute, true, false},
		{"used at 168h00m00.999s", 168*time.Hour + 999*time.Millisecond, false, true},
		{"used at 168h", 168 * time.Hour, false, true},
		{"used at 168h00m01s", 168*time.Hour + time.Second, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, clk := newStore(t)
			ctx := context.Background()
			if err := s.RecordVoice(ctx, record.Voice{VoiceID: "v1"}); err != nil {
				t.Fatal(err)
			}
			clk.Advance(c.usedAt)
			task := speak(t, s, "v1", clk.Now(), api.StateSuccess)
			if err := s.RecordVoiceUse(ctx, task); err != nil {
				t.Fatal(err)
			}
			v := voice(t, s, "v1")
			if v.Kept != c.kept || !v.LastUsedAt.Equal(t0.Add(c.usedAt).Truncate(time.Millisecond)) {
				t.Errorf("kept %v last used %v, want kept %v used at +%v", v.Kept, v.LastUsedAt, c.kept, c.usedAt)
			}
			// The deadline never moves: a use does not restart a clock.
			if !v.ExpiresAt.Equal(t0.Add(record.VoiceRetention)) {
				t.Errorf("expires %v, want %v", v.ExpiresAt, t0.Add(record.VoiceRetention))
			}
			if got := v.Expired(t0.Add(365 * 24 * time.Hour)); got != c.expired {
				t.Errorf("expired a year on: %v, want %v", got, c.expired)
			}
			if v.Expiring(clk.Now().Add(-time.Minute), time.Hour) && c.kept {
				t.Error("a kept voice still counts as expiring")
			}
		})
	}
}

func TestVoiceUseRules(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "v1"}); err != nil {
		t.Fatal(err)
	}
	// Only a successful audio-tts counts.
	queued := speak(t, s, "v1", t0.Add(time.Hour), api.StateQueueing)
	failed := speak(t, s, "v1", t0.Add(time.Hour), api.StateFailed)
	system := speak(t, s, "system_narrator", t0.Add(time.Hour), api.StateSuccess)
	for _, id := range []string{queued, failed, system, "no-such-task"} {
		if err := s.RecordVoiceUse(ctx, id); !errors.Is(err, record.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", id, err)
		}
	}
	if v := voice(t, s, "v1"); v.Kept || !v.LastUsedAt.IsZero() {
		t.Fatalf("a use that did not succeed was recorded: %+v", v)
	}
	// The queued synthesis succeeds later (the watcher sees it): the use
	// counts at its creation, within the 168 h, even if seen after them.
	clk.Set(t0.Add(200 * time.Hour))
	if _, err := s.ApplyResult(ctx, queued, record.Update{State: api.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordVoiceUse(ctx, queued); err != nil {
		t.Fatal(err)
	}
	v := voice(t, s, "v1")
	if !v.Kept || !v.LastUsedAt.Equal(t0.Add(time.Hour)) || v.Expired(clk.Now()) {
		t.Errorf("after a queued synthesis succeeded: %+v", v)
	}
	// Recording it again, or an older use, moves nothing back.
	later := speak(t, s, "v1", t0.Add(300*time.Hour), api.StateSuccess)
	for _, id := range []string{later, queued} {
		if err := s.RecordVoiceUse(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if v := voice(t, s, "v1"); !v.Kept || !v.LastUsedAt.Equal(t0.Add(300*time.Hour)) {
		t.Errorf("after a later use: %+v", v)
	}
}

// A use after expiry does not revive the voice: the service deleted it, and
// a deleted voice stays deleted here too.
func TestVoiceUseAfterExpiryDoesNotRevive(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"late", "forgotten"} {
		if err := s.RecordVoice(ctx, record.Voice{VoiceID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteVoice(ctx, "forgotten"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"late", "forgotten"} {
		if err := s.RecordVoiceUse(ctx, speak(t, s, id, t0.Add(169*time.Hour), api.StateSuccess)); err != nil {
			t.Fatal(err)
		}
	}
	if v := voice(t, s, "late"); v.Kept || !v.Expired(t0.Add(169*time.Hour)) {
		t.Errorf("a use after expiry revived the voice: %+v", v)
	}
	if v := voice(t, s, "forgotten"); v.Kept || !v.Deleted {
		t.Errorf("a late use undid a deletion: %+v", v)
	}
	// A use in time shows the service had it: a voice forgotten here but
	// used in time is back, and kept.
	if err := s.RecordVoice(ctx, record.Voice{VoiceID: "back", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	s.DeleteVoice(ctx, "back")
	if err := s.RecordVoiceUse(ctx, speak(t, s, "back", t0.Add(time.Hour), api.StateSuccess)); err != nil {
		t.Fatal(err)
	}
	if v := voice(t, s, "back"); !v.Kept || v.Deleted {
		t.Errorf("a voice used in time: %+v", v)
	}
}

func TestVoicesExpiringWithin(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	// Expiries at created + 168 h: a at now+1h, b at now+24h exactly,
	// c at now+24h+1ms, d already expired, e deleted, f used in time (kept).
	now := t0.Add(200 * time.Hour)
	rec := func(id string, expires time.Time) {
		t.Helper()
		if err := s.RecordVoice(ctx, record.Voice{VoiceID: id, CreatedAt: expires.Add(-record.VoiceRetention)}); err != nil {
			t.Fatal(err)
		}
	}
	rec("a", now.Add(time.Hour))
	rec("b", now.Add(24*time.Hour))
	rec("c", now.Add(24*time.Hour+time.Millisecond))
	rec("d", now)
	rec("e", now.Add(2*time.Hour))
	if err := s.DeleteVoice(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	rec("f", now.Add(3*time.Hour))
	if err := s.RecordVoiceUse(ctx, speak(t, s, "f", now.Add(-time.Hour), api.StateSuccess)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		window time.Duration
		want   []string
	}{
		{24 * time.Hour, []string{"a", "b"}},
		{24*time.Hour + time.Millisecond, []string{"a", "b", "c"}},
		{time.Hour - time.Millisecond, nil},
		{0, nil},
		{1000 * time.Hour, []string{"a", "b", "c"}},
	} {
		got, err := s.VoicesExpiringWithin(ctx, now, c.window)
		if err != nil {
			t.Fatal(err)
		}
		if ids := voiceIDs(got); !slices.Equal(ids, c.want) {
			t.Errorf("window %v: %v, want %v", c.window, ids, c.want)
		}
		// Voice.Expiring is the same rule.
		all, _ := s.Voices(ctx)
		var same []string
		for _, v := range all {
			if v.Expiring(now, c.window) {
				same = append(same, v.VoiceID)
			}
		}
		if !slices.Equal(same, c.want) {
			t.Errorf("window %v: Expiring picks %v, the query %v", c.window, same, c.want)
		}
	}
	all, _ := s.Voices(ctx)
	if ids := voiceIDs(all); !slices.Equal(ids, []string{"d", "a", "e", "b", "c", "f"}) {
		t.Errorf("Voices order %v", ids)
	}
	if !all[0].Expired(now) || all[1].Expired(now) || all[5].Expired(now.Add(1000*time.Hour)) {
		t.Errorf("Expired: d %v a %v f %v", all[0].Expired(now), all[1].Expired(now), all[5].Expired(now.Add(1000*time.Hour)))
	}
}

// Voices recorded under the old rule (each use restarted a 168 h clock)
// come out of the migration with the deadline back at cloning + 168 h, and
// kept when a use was recorded: the service accepted that use, so it still
// had the voice, which it would not unless a use came in time.
func TestMigrationKeepsUsedVoices(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	db := rawDB(t, path)
	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN kept") })
	if before < 0 {
		t.Fatal("no migration adds voices.kept")
	}
	if err := migrate(ctx, db, before); err != nil {
		t.Fatal(err)
	}
	day := int64(24 * time.Hour / time.Millisecond)
	created := t0.UnixMilli()
	if _, err := db.ExecContext(ctx, `INSERT INTO voices (voice_id, created_at, last_used_at, expires_at) VALUES
		('unused', ?1, NULL, ?1 + 7 * ?2),
		('used', ?1, ?1 + ?2, ?1 + 8 * ?2),
		('used-late', ?1, ?1 + 9 * ?2, ?1 + 16 * ?2)`, created, day); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		id   string
		kept bool
	}{{"unused", false}, {"used", true}, {"used-late", true}} {
		v := voice(t, s, c.id)
		if v.Kept != c.kept || !v.ExpiresAt.Equal(t0.Add(record.VoiceRetention)) {
			t.Errorf("%s: kept %v expires %v, want kept %v expires %v", c.id, v.Kept, v.ExpiresAt, c.kept, t0.Add(record.VoiceRetention))
		}
	}
	if got, _ := s.VoicesExpiringWithin(ctx, t0.Add(150*time.Hour), 24*time.Hour); !slices.Equal(voiceIDs(got), []string{"unused"}) {
		t.Errorf("expiring after migration: %v", voiceIDs(got))
	}
}

// The window of a use that keeps a voice is [cloning, cloning + 168 h): a
// synthesis at the very instant of the cloning is this voice's use; one a
// millisecond before belongs to an earlier voice of that id.
func TestVoiceUseAtTheInstantOfCloning(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for id, at := range map[string]time.Time{"now": t0, "before": t0.Add(-time.Millisecond)} {
		if err := s.RecordVoice(ctx, record.Voice{VoiceID: id, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordVoiceUse(ctx, speak(t, s, id, at, api.StateSuccess)); err != nil {
			t.Fatal(err)
		}
	}
	if v := voice(t, s, "now"); !v.Kept {
		t.Errorf("a use at the instant of cloning does not keep the voice: %+v", v)
	}
	if v := voice(t, s, "before"); v.Kept {
		t.Errorf("a use before the cloning keeps the voice: %+v", v)
	}
}
