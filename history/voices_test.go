package history

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func voiceIDs(vs []Voice) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.VoiceID)
	}
	return out
}

func TestRecordVoice(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	if err := s.RecordVoice(ctx, Voice{VoiceID: "narrator01", CloneTaskID: "tk-c", DemoAudio: "https://r/demo.wav"}); err != nil {
		t.Fatal(err)
	}
	vs, err := s.Voices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Voice{VoiceID: "narrator01", CloneTaskID: "tk-c", CreatedAt: t0, DemoAudio: "https://r/demo.wav",
		ExpiresAt: t0.Add(168 * time.Hour)}
	if len(vs) != 1 || vs[0] != want {
		t.Fatalf("voices %+v, want %+v", vs, want)
	}
	if err := s.RecordVoice(ctx, Voice{VoiceID: "narrator01"}); !errors.Is(err, ErrConflict) {
		t.Errorf("duplicate voice: %v", err)
	}
	if err := s.RecordVoice(ctx, Voice{}); err == nil {
		t.Error("recorded a voice without an id")
	}
	// Once the service has dropped the voice, its id may be cloned again.
	clk.Advance(168 * time.Hour)
	if err := s.RecordVoice(ctx, Voice{VoiceID: "narrator01", CloneTaskID: "tk-d"}); err != nil {
		t.Fatalf("re-cloning an expired id: %v", err)
	}
	if err := s.DeleteVoice(ctx, "narrator01"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordVoice(ctx, Voice{VoiceID: "narrator01", CloneTaskID: "tk-e"}); err != nil {
		t.Fatalf("re-cloning a deleted id: %v", err)
	}
	vs, _ = s.Voices(ctx)
	if len(vs) != 1 || vs[0].CloneTaskID != "tk-e" || vs[0].Deleted || !vs[0].CreatedAt.Equal(clk.Now()) {
		t.Errorf("after re-cloning: %+v", vs)
	}
	if err := s.DeleteVoice(ctx, "ghost"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting an unknown voice: %v", err)
	}
}

func TestTouchVoiceMovesExpiry(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.RecordVoice(ctx, Voice{VoiceID: "v1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		at       time.Time
		lastUsed time.Time
		expires  time.Time
	}{
		{"first use", t0.Add(100 * time.Hour), t0.Add(100 * time.Hour), t0.Add(268 * time.Hour)},
		{"later use", t0.Add(200 * time.Hour), t0.Add(200 * time.Hour), t0.Add(368 * time.Hour)},
		{"an older use does not move it back", t0.Add(150 * time.Hour), t0.Add(200 * time.Hour), t0.Add(368 * time.Hour)},
	} {
		if err := s.TouchVoice(ctx, "v1", c.at); err != nil {
			t.Fatal(err)
		}
		vs, _ := s.Voices(ctx)
		if !vs[0].LastUsedAt.Equal(c.lastUsed) || !vs[0].ExpiresAt.Equal(c.expires) {
			t.Errorf("%s: used %v expires %v, want %v %v", c.name, vs[0].LastUsedAt, vs[0].ExpiresAt, c.lastUsed, c.expires)
		}
	}
	if err := s.TouchVoice(ctx, "nobody", t0); !errors.Is(err, ErrNotFound) {
		t.Errorf("touching an unknown voice: %v", err)
	}
	// The service accepted it for synthesis, so it exists.
	s.DeleteVoice(ctx, "v1")
	if err := s.TouchVoice(ctx, "v1", t0.Add(300*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if vs, _ := s.Voices(ctx); vs[0].Deleted {
		t.Error("a used voice stays deleted")
	}
}

func TestVoicesExpiringWithin(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	// Expiries at created + 168 h: a at now+1h, b at now+24h exactly,
	// c at now+24h+1ms, d already expired, e deleted, f used recently.
	now := t0.Add(200 * time.Hour)
	rec := func(id string, expires time.Time) {
		t.Helper()
		if err := s.RecordVoice(ctx, Voice{VoiceID: id, CreatedAt: expires.Add(-VoiceRetention)}); err != nil {
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
	if err := s.TouchVoice(ctx, "f", now.Add(-time.Hour)); err != nil { // moves f to now+167h
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
		{168 * time.Hour, []string{"a", "b", "c", "f"}},
	} {
		got, err := s.VoicesExpiringWithin(ctx, now, c.window)
		if err != nil {
			t.Fatal(err)
		}
		if ids := voiceIDs(got); !slices.Equal(ids, c.want) {
			t.Errorf("window %v: %v, want %v", c.window, ids, c.want)
		}
	}
	all, _ := s.Voices(ctx)
	if ids := voiceIDs(all); !slices.Equal(ids, []string{"d", "a", "e", "b", "c", "f"}) {
		t.Errorf("Voices order %v", ids)
	}
	if !all[0].Expired(now) || all[1].Expired(now) {
		t.Errorf("Expired: d %v a %v", all[0].Expired(now), all[1].Expired(now))
	}
}
