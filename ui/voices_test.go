package ui

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// testVoice is one cloned voice of test data: cloned ago before testNow,
// used in speech synthesis usedAfter its cloning when set.
type testVoice struct {
	id        string
	ago       time.Duration
	usedAfter time.Duration
	demo      bool
	forgotten bool // forgotten here with f
}

// seedVoices records voices as the tracker does: the clone, then a
// successful synthesis for a used one.
func seedVoices(t testing.TB, m *Model, voices []testVoice) {
	t.Helper()
	ctx := context.Background()
	store := m.env.store()
	for i, v := range voices {
		created := testNow.Add(-v.ago)
		rec := record.Voice{VoiceID: v.id, CloneTaskID: fmt.Sprintf("clone-%d", i), CreatedAt: created}
		if v.demo {
			rec.DemoAudio = "https://cdn.example.com/demo/" + v.id + ".wav"
		}
		if err := store.RecordVoice(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if v.forgotten {
			if err := store.DeleteVoice(ctx, v.id); err != nil {
				t.Fatal(err)
			}
		}
		if v.usedAfter == 0 {
			continue
		}
		local, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS,
			Body: fmt.Appendf(nil, `{"text":"hello","voice_setting_voice_id":%q}`, v.id)})
		if err != nil {
			t.Fatal(err)
		}
		task := fmt.Sprintf("tts-%d", i)
		if err := store.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: task, State: api.StateSuccess, CreatedAt: created.Add(v.usedAfter)}); err != nil {
			t.Fatal(err)
		}
		if err := store.RecordVoiceUse(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
}

// standardVoices: one of each state the page tells apart.
func standardVoices() []testVoice {
	return []testVoice{
		{id: "fresh_narrator", ago: 2 * time.Hour, demo: true},                                           // 166h left
		{id: "podcast_host_02", ago: 150*time.Hour + 20*time.Minute, demo: true},                         // 17h40m left
		{id: "last_call_voice", ago: 167*time.Hour + 15*time.Minute},                                     // 45m left
		{id: "kept_storyteller", ago: 300 * time.Hour, usedAfter: 100 * time.Hour, demo: true},           // used in time
		{id: "gone_announcer", ago: 200 * time.Hour},                                                     // expired 32h ago
		{id: "a_very_long_voice_identifier_that_will_not_fit_in_any_column_at_all", ago: 24 * time.Hour}, // 144h left
	}
}

// newVoicesModel is the root with voices, on the Voices page, at a clock
// the test can move.
func newVoicesModel(t *testing.T, w, h int, voices []testVoice, now *time.Time) *Model {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	m := New(s, func() time.Time { return *now }, nil)
	seedVoices(t, m, voices)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	send(m, press("4"))
	return m
}

func TestVoicesScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			now := testNow
			m := newVoicesModel(t, size.w, size.h, standardVoices(), &now)
			m.statusText = "" // the start notice is TestVoiceReminders' business
			snapshot(t, m)
		})
	}
}

// The page lists voices counting down soonest first, then kept, then
// expired ones, each with its state readable without colour; the tab
// carries how many are deleted within 24 h.
func TestVoicesListAndBadge(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 140, 40, standardVoices(), &now)
	got := screen(m)
	order := []string{"last_call_voice", "podcast_host_02", "a_very_long_voice", "fresh_narrator", "kept_storyteller", "gone_announcer"}
	at := -1
	for _, id := range order {
		i := strings.Index(got, id)
		if i < at {
			t.Errorf("%s out of order:\n%s", id, got)
		}
		at = i
	}
	for _, want := range []string{"4 Voices (2)", "! 45m left", "! 17h40m left", "◷ 6d 22h left", "✓ kept", "✗ expired", "never"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	// Once the 45-minute voice expires, it moves down and the badge drops.
	now = testNow.Add(46 * time.Minute)
	send(m, historyChangedMsg{})
	if got := screen(m); !strings.Contains(got, "4 Voices (1)") || strings.Index(got, "last_call_voice") < strings.Index(got, "kept_storyteller") {
		t.Errorf("after an expiry:\n%s", got)
	}
}

// Each key hands the New page the operation with the voice chosen, or asks
// before forgetting; a deleted voice offers no speech.
func TestVoicesKeys(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 100, 30, standardVoices(), &now)
	p := m.pages[pageVoices].(*voicesPage)
	form := func(k string) newFormMsg {
		t.Helper()
		cmd := p.Update(press(k))
		if cmd == nil {
			t.Fatalf("%s does nothing", k)
		}
		msg, ok := cmd().(newFormMsg)
		if !ok {
			t.Fatalf("%s: %T", k, msg)
		}
		return msg
	}
	if f := form("t"); f.op != api.OpAudioTTS || f.values["voice_setting_voice_id"] != "last_call_voice" {
		t.Errorf("t: %+v", f)
	}
	send(m, press("j"))
	if f := form("l"); f.op != api.OpLipSync || f.values["voice_id"] != "podcast_host_02" {
		t.Errorf("l: %+v", f)
	}
	f := form("r")
	subjects, _ := f.values["subjects"].([]any)
	if f.op != api.OpReference2Video || len(subjects) != 1 || subjects[0].(map[string]any)["voice_id"] != "podcast_host_02" {
		t.Errorf("r: %+v", f)
	}
	if f := form("c"); f.op != api.OpAudioClone || len(f.values) != 0 {
		t.Errorf("c: %+v", f)
	}
	// The root takes it to the New page.
	send(m, press("t"))
	if m.active != pageNew {
		t.Errorf("t left the page on %d", m.active)
	}
	send(m, switchPageMsg{page: pageVoices}) // the form in front takes typed keys
	// An expired voice: no speech, lip-sync or subject, and help says so.
	send(m, press("G"))
	if v, _ := p.selected(); v.VoiceID != "gone_announcer" {
		t.Fatalf("G selected %s", v.VoiceID)
	}
	for _, k := range []string{"t", "l", "r", "p"} {
		if cmd := p.Update(press(k)); cmd != nil {
			t.Errorf("%s works on an expired voice", k)
		}
	}
	if got := screen(m); strings.Contains(got, "t speak") {
		t.Errorf("help offers speech for an expired voice:\n%s", got)
	}
	// d asks first; n keeps the voice, y forgets it.
	send(m, press("d"))
	if !strings.Contains(screen(m), "Forget voice gone_announcer?") {
		t.Fatalf("no question:\n%s", screen(m))
	}
	send(m, press("n"))
	if !strings.Contains(screen(m), "gone_announcer") {
		t.Fatal("n forgot the voice")
	}
	send(m, press("d"))
	send(m, press("y"))
	if got := screen(m); strings.Count(got, "gone_announcer") != 1 || !strings.Contains(got, "forgot voice gone_announcer") {
		t.Errorf("after y, the voice should only be named by the status line:\n%s", got)
	}
}

func TestVoicesEmptyStateSaysWhatToDo(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 80, 24, nil, &now)
	got := screen(m)
	for _, want := range []string{"No cloned voice yet", "c clones one", "within 168", "reminds you", "voices --expiring", "S reads the service's subjects"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	// The footer names the subject key too: s works on an empty page.
	if lines := strings.Split(strings.TrimRight(got, "\n"), "\n"); !strings.Contains(lines[len(lines)-1], "s new subject") {
		t.Errorf("the footer does not offer s new subject:\n%s", got)
	}
	if m.pages[pageVoices].Title() != "Voices" {
		t.Errorf("badge without voices: %q", m.pages[pageVoices].Title())
	}
}

// Reminders: one summary at start, then exactly one notice per voice as it
// crosses 24 h and 1 h left, from a single timer set for the next crossing.
func TestVoiceReminders(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{
		{id: "soon_voice", ago: 150 * time.Hour},  // 18h left at start
		{id: "later_voice", ago: 140 * time.Hour}, // 28h left
		{id: "kept_voice", ago: 167 * time.Hour, usedAfter: time.Hour},
	}, &now)
	p := m.pages[pageVoices].(*voicesPage)
	if !strings.Contains(m.statusText, "soon_voice expires in 18h00m unless used in speech synthesis (4 Voices)") {
		t.Fatalf("start notice: %q", m.statusText)
	}
	seq := m.statusSeq
	notices := func() []string {
		t.Helper()
		var out []string
		if m.statusSeq != seq {
			out = append(out, m.statusText)
			if m.statusSeq != seq+1 {
				t.Errorf("%d notices at once", m.statusSeq-seq)
			}
		}
		seq = m.statusSeq
		return out
	}
	// A re-read says nothing new.
	send(m, historyChangedMsg{})
	if n := notices(); n != nil {
		t.Errorf("a re-read repeated the notice: %v", n)
	}
	// The timer is set for the next crossing, capped at an hour: later_voice
	// crosses 24 h in 4 h.
	if !p.rem.due.Equal(now.Add(reminderCap)) {
		t.Errorf("timer due %v, want %v", p.rem.due, now.Add(reminderCap))
	}
	tick := func(at time.Duration) []string {
		t.Helper()
		now = testNow.Add(at)
		send(m, voiceReminderMsg{gen: p.rem.gen})
		return notices()
	}
	if n := tick(time.Hour); n != nil {
		t.Errorf("nothing crossed, yet: %v", n)
	}
	if n := tick(4*time.Hour - time.Second); n != nil {
		t.Errorf("a second early: %v", n)
	}
	if !p.rem.due.Equal(testNow.Add(4 * time.Hour)) {
		t.Errorf("timer due %v, want the crossing at +4h", p.rem.due)
	}
	n := tick(4 * time.Hour)
	if len(n) != 1 || !strings.Contains(n[0], "later_voice expires in 24h00m") {
		t.Errorf("24 h crossing: %v", n)
	}
	if n := tick(4*time.Hour + time.Minute); n != nil {
		t.Errorf("the 24 h notice came again: %v", n)
	}
	// A stale timer (an earlier schedule's) does nothing.
	send(m, voiceReminderMsg{gen: p.rem.gen - 1})
	if n := notices(); n != nil {
		t.Errorf("a stale timer: %v", n)
	}
	// soon_voice reaches 1 h left at +17h.
	n = tick(17*time.Hour + 20*time.Millisecond) // a timer a moment late
	if len(n) != 1 || !strings.Contains(n[0], "soon_voice expires in 1h00m") {
		t.Errorf("1 h crossing: %v", n)
	}
	if n := tick(17*time.Hour + 30*time.Minute); n != nil {
		t.Errorf("the 1 h notice came again: %v", n)
	}
	n = tick(27 * time.Hour)
	if len(n) != 1 || !strings.Contains(n[0], "later_voice expires in 1h00m") {
		t.Errorf("later_voice's 1 h crossing: %v", n)
	}
	// Both expire: no timer is left, and a kept voice never set one.
	tick(29 * time.Hour)
	if !p.rem.due.IsZero() {
		t.Errorf("a timer is still set for %v with nothing counting down", p.rem.due)
	}
	if m.pages[pageVoices].Title() != "Voices" {
		t.Errorf("badge after every voice expired: %q", m.pages[pageVoices].Title())
	}
}

// A voice forgotten here is not listed and is no reminder's subject,
// however close its expiry: neither at start nor when it crosses 1 h left.
func TestForgottenVoiceGetsNoReminder(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{
		{id: "forgotten_voice", ago: 150 * time.Hour, forgotten: true}, // 18h left
		{id: "kept_voice", ago: 167 * time.Hour, usedAfter: time.Hour},
	}, &now)
	p := m.pages[pageVoices].(*voicesPage)
	if strings.Contains(m.statusText, "forgotten_voice") || strings.Contains(screen(m), "forgotten_voice") {
		t.Fatalf("a forgotten voice is listed or named in the start notice (%q):\n%s", m.statusText, screen(m))
	}
	now = testNow.Add(17 * time.Hour)
	send(m, voiceReminderMsg{gen: p.rem.gen})
	if strings.Contains(m.statusText, "forgotten_voice") || !p.rem.due.IsZero() {
		t.Fatalf("a forgotten voice was reminded of (%q) or timed (%v)", m.statusText, p.rem.due)
	}
}

// A page of kept and expired voices has no countdown on it, so nothing
// wakes the program to redraw it; one voice counting down does.
func TestVoicesPageTicksOnlyForACountdown(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{
		{id: "kept_voice", ago: 2 * time.Hour, usedAfter: time.Hour},
		{id: "gone_voice", ago: 200 * time.Hour},
	}, &now)
	if every := m.tickEvery(); every != 0 {
		t.Fatalf("kept and expired voices wake the page every %v", every)
	}
	m = newVoicesModel(t, 120, 30, []testVoice{{id: "fresh_voice", ago: 150*time.Hour + 30*time.Second}}, &now)
	if every := m.tickEvery(); every <= 0 || every > time.Minute {
		t.Fatalf("a voice with 17h59m30s left wakes the page every %v, want within the minute its label changes", every)
	}
}

// A voice cloned from the New page is on the Voices page at once: the
// watcher does not report the studio's own sends back, and a clone is
// final on its answer.
func TestVoiceClonedHereShowsOnVoicesPage(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 80, 24, nil, &now)
	if !strings.Contains(screen(m), "No cloned voice yet") {
		t.Fatalf("not empty at start:\n%s", screen(m))
	}
	p := showForm(t, m, api.OpAudioClone, "")
	typeText(m, "https://example.com/me.mp3")
	send(m, press("enter"))
	typeText(m, "narrator_77")
	if !runUntil(m, nil, func() bool { return p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v\n%s", p.form.Check().Broken, screen(m))
	}
	send(m, ctrl('s'))
	_, cmd := m.Update(press("enter"))
	if !runUntil(m, cmd, func() bool { return m.detail() != nil }, 10*time.Second) {
		t.Fatalf("the clone's answer did not open:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("4"))
	if got := screen(m); !strings.Contains(got, "narrator_77") || strings.Contains(got, "No cloned voice yet") {
		t.Fatalf("the Voices page does not show the voice just cloned:\n%s", got)
	}
}
