package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"clapper/api"
)

func TestStatesFollowTheClock(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpText2Video, samples[api.OpText2Video])
	if s := h.get(id).State; s != api.StateCreated {
		t.Fatalf("fresh task is %s", s)
	}
	var seen []string
	for i := 0; i < 600; i++ {
		r := h.get(id)
		if len(seen) == 0 || seen[len(seen)-1] != r.State {
			seen = append(seen, r.State)
		}
		if api.IsTerminal(r.State) {
			if len(r.Creations) != 1 || r.Creations[0].URL == "" || r.Creations[0].CoverURL == "" {
				t.Errorf("success without result URLs: %+v", r)
			}
			if r.ErrCode != "" || r.Credits <= 0 {
				t.Errorf("success err_code %q credits %d", r.ErrCode, r.Credits)
			}
			break
		}
		if len(r.Creations) != 0 {
			t.Errorf("%s task has creations", r.State)
		}
		h.advance(time.Second)
	}
	want := []string{api.StateCreated, api.StateQueueing, api.StateProcessing, api.StateSuccess}
	if !slices.Equal(seen, want) {
		t.Errorf("states %v, want %v", seen, want)
	}
}

func TestDurationsGrowWithLengthAndResolution(t *testing.T) {
	p := func(d int, res string) time.Duration {
		return processing(api.OpText2Video, map[string]any{"model": "svcq3-pro", "duration": d, "resolution": res}, 0)
	}
	if !(p(5, "720p") < p(10, "720p") && p(10, "720p") < p(10, "1080p")) {
		t.Errorf("5s 720p %s, 10s 720p %s, 10s 1080p %s: want increasing", p(5, "720p"), p(10, "720p"), p(10, "1080p"))
	}
	if d := p(5, "720p"); d < 30*time.Second || d > 3*time.Minute {
		t.Errorf("a 5 s 720p video takes %s", d)
	}
}

// The operations of 2026 run as long as the package documents (doc.go,
// "States and timing"), jittered x0.8-1.3, measured as a client measures
// them: from started_at to ended_at in GET /_sandbox/tasks. extend and
// multiframe take what a video of the seconds they make takes at their
// resolution (the extension; the key frames' sum), upscale-new 30 s by its
// target's factor, text2audio 5 s plus its duration.
func TestRunTimesOfTheOperationsOf2026(t *testing.T) {
	h := newHarness(t, Config{})
	frame := func(n int) map[string]any {
		return map[string]any{"key_image": fmt.Sprintf("https://example.com/k%d.png", n), "duration": 7}
	}
	cases := []struct {
		what string
		op   api.Operation
		body map[string]any
		secs float64 // before the jitter
	}{
		{"a 7 s extension at 1080p: 20 s + 7 × 6 s × 1.6", api.OpExtend,
			map[string]any{"model": "svcq2-pro", "video_url": "https://example.com/v.mp4", "duration": 7, "resolution": "1080p"}, 20 + 7*6*1.6},
		{"three key frames of 7 s at 1080p: 20 s + 21 × 6 s × 1.6", api.OpMultiframe,
			map[string]any{"model": "svcq2-turbo", "start_image": img, "image_settings": []map[string]any{frame(1), frame(2), frame(3)}, "resolution": "1080p"}, 20 + 21*6*1.6},
		{"an upscale to 8K: 30 s × 7", api.OpUpscaleNew,
			map[string]any{"video_url": "https://example.com/v.mp4", "upscale_resolution": "8K"}, 30 * 7},
		{"10 s of sound: 5 s + 10 s", api.OpText2Audio,
			map[string]any{"model": "audio1.0", "prompt": "rain", "duration": 10}, 5 + 10},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = h.createID(c.op, c.body)
	}
	h.advance(10 * time.Minute)
	for i, c := range cases {
		e := h.listed(ids[i])
		start, err1 := time.Parse(time.RFC3339Nano, e.StartedAt)
		end, err2 := time.Parse(time.RFC3339Nano, e.EndedAt)
		if e.State != api.StateSuccess || err1 != nil || err2 != nil {
			t.Errorf("%s: %s, started %q, ended %q", c.what, e.State, e.StartedAt, e.EndedAt)
			continue
		}
		if ran := end.Sub(start).Seconds(); ran < 0.8*c.secs || ran > 1.3*c.secs {
			t.Errorf("%s: ran %.1f s, want %.1f-%.1f s", c.what, ran, 0.8*c.secs, 1.3*c.secs)
		}
	}
}

func TestSpeedScalesTheSimulation(t *testing.T) {
	slow := newHarness(t, Config{})
	fast := newHarness(t, Config{Speed: 60})
	a := slow.createID(api.OpText2Video, samples[api.OpText2Video])
	b := fast.createID(api.OpText2Video, samples[api.OpText2Video])
	fast.advance(5 * time.Second)
	slow.advance(5 * time.Second)
	if s := fast.get(b).State; s != api.StateSuccess {
		t.Errorf("at speed 60 a task is %s after 5 s", s)
	}
	if s := slow.get(a).State; api.IsTerminal(s) {
		t.Errorf("at speed 1 a task is %s after 5 s", s)
	}
}

// processingIDs lists the tasks among ids that are processing.
func processingIDs(h *harness, ids []string) (proc, queued []string) {
	for _, id := range ids {
		switch h.get(id).State {
		case api.StateProcessing:
			proc = append(proc, id)
		case api.StateQueueing:
			queued = append(queued, id)
		}
	}
	return proc, queued
}

func TestAtMostFiveRunAndTheRestQueueInOrder(t *testing.T) {
	h := newHarness(t, Config{})
	var ids []string
	for range 7 {
		ids = append(ids, h.createID(api.OpText2Video, samples[api.OpText2Video]))
	}
	h.advance(10 * time.Second)
	proc, queued := processingIDs(h, ids)
	if !slices.Equal(proc, ids[:5]) || !slices.Equal(queued, ids[5:]) {
		t.Fatalf("processing %v queueing %v, want the first five processing", proc, queued)
	}
	// Each later task starts only after an earlier one, never overtaking.
	started := map[string]int{}
	for sec := 0; len(started) < len(ids) && sec < 3600; sec++ {
		proc, _ := processingIDs(h, ids)
		if len(proc) > 5 {
			t.Fatalf("%d tasks processing at once", len(proc))
		}
		for _, id := range proc {
			if _, ok := started[id]; !ok {
				started[id] = sec
			}
		}
		h.advance(time.Second)
	}
	if started[ids[5]] > started[ids[6]] {
		t.Errorf("task 7 started at %d s, before task 6 at %d s", started[ids[6]], started[ids[5]])
	}
}

// A machine's clock set back (by hand, or by NTP after it ran ahead) holds
// the simulation still until it catches up: a task made meanwhile is not
// planned before what was already simulated, and so runs to its end.
func TestATaskMadeAfterTheClockWasSetBackRuns(t *testing.T) {
	h := newHarness(t, Config{})
	h.until(h.createID(api.OpReference2Image, samples[api.OpReference2Image]), api.StateSuccess, 10*time.Minute)
	h.clock.Set(h.clock.Now().Add(-time.Minute))
	id := h.createID(api.OpReference2Image, samples[api.OpReference2Image])
	h.until(id, api.StateSuccess, 10*time.Minute)
}

// An off-peak task whose slot in the window has come and a queued task both
// wait for the one free slot: the one submitted first starts first, here the
// off-peak one, then the other.
func TestReadyOffPeakAndQueuedTasksStartInSubmissionOrder(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1})
	off := h.createID(api.OpText2Video, sample(api.OpText2Video, map[string]any{"off_peak": true, "audio": false}))
	slot := h.unit(off)
	if !slot.EligibleAt.Before(slot.Deadline) {
		t.Fatal("the off-peak task has no slot in its window with this seed")
	}
	// Twenty seconds before its slot, a task takes the only slot for about a
	// minute and another queues behind it: both are ready when it ends.
	h.advance(slot.EligibleAt.Add(-20 * time.Second).Sub(h.clock.Now()))
	running := h.createID(api.OpText2Video, samples[api.OpText2Video])
	queued := h.createID(api.OpText2Video, samples[api.OpText2Video])
	h.advance(10 * time.Second)
	if s := h.get(running).State; s != api.StateProcessing {
		t.Fatalf("the first on-peak task is %s, want processing", s)
	}
	h.advance(10 * time.Minute)
	first, second, third := h.listed(running), h.listed(off), h.listed(queued)
	if !(first.EndedAt == second.StartedAt && second.EndedAt == third.StartedAt) {
		t.Errorf("running %s-%s, then off-peak (submitted first) %s-%s, then queued %s-%s: want each to start as the one before ends",
			first.StartedAt, first.EndedAt, second.StartedAt, second.EndedAt, third.StartedAt, third.EndedAt)
	}
}

func TestConcurrencyLimitIsConfigurable(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1})
	a := h.createID(api.OpReference2Image, samples[api.OpReference2Image])
	b := h.createID(api.OpReference2Image, samples[api.OpReference2Image])
	h.advance(10 * time.Second)
	if sa, sb := h.get(a).State, h.get(b).State; sa != api.StateProcessing || sb != api.StateQueueing {
		t.Errorf("states %s, %s; want processing, queueing", sa, sb)
	}
	h.until(b, api.StateSuccess, time.Hour)
}

func TestFailedTasksCarryAnErrCode(t *testing.T) {
	h := newHarness(t, Config{FailRate: 1})
	for _, op := range []api.Operation{api.OpText2Video, api.OpTrendingReplicate, api.OpMV} {
		id := h.createID(op, samples[op])
		r := h.until(id, api.StateFailed, 2*time.Hour)
		if _, known := api.ReasonStatus[r.ErrCode]; !known {
			t.Errorf("%s: err_code %q is not a service reason", op, r.ErrCode)
		}
		if r.Credits != 0 || len(r.Creations) != 0 {
			t.Errorf("%s: failed task shows credits %d, creations %v", op, r.Credits, r.Creations)
		}
	}
	// Synchronous operations fail at once.
	m := h.create(api.OpAudioTTS, samples[api.OpAudioTTS])
	if m["state"] != api.StateFailed || m["err_code"] == "" || m["file_url"] != "" {
		t.Errorf("TTS with fail rate 1 = %v", m)
	}
}

func TestFailRateIsAFraction(t *testing.T) {
	h := newHarness(t, Config{FailRate: 0.3, Speed: 100})
	var ids []string
	for range 60 {
		ids = append(ids, h.createID(api.OpReference2Image, samples[api.OpReference2Image]))
	}
	h.advance(time.Hour)
	failed := 0
	for _, id := range ids {
		if h.get(id).State == api.StateFailed {
			failed++
		}
	}
	if failed < 8 || failed > 30 {
		t.Errorf("%d of 60 failed at rate 0.3", failed)
	}
}

func TestTrendingReplicateProgressRises(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpTrendingReplicate, samples[api.OpTrendingReplicate])
	last, rises := -1, 0
	for i := 0; i < 3600; i++ {
		r := h.get(id)
		if r.Progress == nil {
			t.Fatal("no progress")
		}
		p := int(*r.Progress)
		if p < last {
			t.Fatalf("progress fell from %d to %d", last, p)
		}
		if p > last {
			rises++
		}
		last = p
		if r.State == api.StateSuccess {
			break
		}
		h.advance(5 * time.Second)
	}
	if last != 100 || rises < 5 {
		t.Errorf("progress ended at %d after %d rises", last, rises)
	}
}

func TestCancel(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpText2Video, samples[api.OpText2Video])
	status, _, raw := h.call(http.MethodPost, "/ent/v2/tasks/"+id+"/cancel", map[string]string{"id": id}, nil)
	if status != 200 || string(raw) != "{}" {
		t.Fatalf("cancel: HTTP %d %s", status, raw)
	}
	r := h.get(id)
	if r.State != api.StateFailed || r.ErrCode != api.ReasonUserCancelled || r.Credits != 0 {
		t.Errorf("cancelled task = %+v", r)
	}
	status, hdr, raw := h.call(http.MethodPost, "/ent/v2/tasks/"+id+"/cancel", nil, nil)
	eb := rejection(t, status, hdr, raw, 400, api.ReasonBadRequest, "id")
	if eb.Message != "task state is failed, can not cancel" {
		t.Errorf("message %q", eb.Message)
	}

	// A queueing task can be cancelled; a processing one cannot.
	var ids []string
	for range 6 {
		ids = append(ids, h.createID(api.OpText2Video, samples[api.OpText2Video]))
	}
	h.advance(10 * time.Second)
	if err := h.client.Cancel(t.Context(), ids[5]); err != nil {
		t.Errorf("cancel queueing: %v", err)
	}
	status, hdr, raw = h.call(http.MethodPost, "/ent/v2/tasks/"+ids[0]+"/cancel", nil, nil)
	eb = rejection(t, status, hdr, raw, 400, api.ReasonBadRequest, "id")
	if eb.Message != "task state is processing, can not cancel" {
		t.Errorf("message %q", eb.Message)
	}
	// Multi-scene jobs cannot be cancelled.
	job := h.createID(api.OpGeneralOneClick, samples[api.OpGeneralOneClick])
	status, hdr, raw = h.call(http.MethodPost, "/ent/v2/tasks/"+job+"/cancel", nil, nil)
	rejection(t, status, hdr, raw, 400, api.ReasonBadRequest, "id")
}

func TestOffPeakFinishesInTheWindowOrIsCancelled(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 50})
	off := sample(api.OpText2Video, map[string]any{"off_peak": true, "audio": false})
	on := h.create(api.OpText2Video, sample(api.OpText2Video, map[string]any{"audio": false}))
	var ids []string
	for i := range 30 {
		m := h.create(api.OpText2Video, off)
		if i == 0 && m["credits"].(float64) >= on["credits"].(float64) {
			t.Errorf("off-peak costs %v, on-peak %v", m["credits"], on["credits"])
		}
		ids = append(ids, m["task_id"].(string))
	}
	// A manual cancel of a waiting off-peak task works.
	if err := h.client.Cancel(t.Context(), ids[0]); err != nil {
		t.Errorf("cancel off-peak: %v", err)
	}
	h.advance(time.Hour)
	if s := h.get(ids[1]).State; s != api.StateQueueing {
		t.Errorf("off-peak task is %s after an hour, want still queueing", s)
	}
	h.advance(47*time.Hour - time.Second)
	var done, waiting []string
	for _, id := range ids[1:] {
		switch r := h.get(id); r.State {
		case api.StateSuccess:
			done = append(done, id)
		case api.StateQueueing:
			waiting = append(waiting, id)
		default:
			t.Errorf("one second before the window closes, a task is %s (%s)", r.State, r.ErrCode)
		}
	}
	h.advance(time.Second)
	for _, id := range waiting {
		if r := h.get(id); r.State != api.StateFailed || r.ErrCode != api.ReasonCanceled || r.Credits != 0 {
			t.Errorf("at the window's end a waiting task is %+v, want failed Canceled with credits returned", r)
		}
	}
	if len(done) == 0 || len(waiting) == 0 {
		t.Errorf("%d done, %d cancelled: want some of each", len(done), len(waiting))
	}
}

func TestDeterministicForASeedAndClock(t *testing.T) {
	run := func() []string {
		h := newHarness(t, Config{Seed: 7, FailRate: 0.5})
		var out []string
		var ids []string
		for _, op := range []api.Operation{api.OpText2Video, api.OpReference2Image, api.OpTiming2Audio, api.OpMV, api.OpGeneralOneClick, api.OpAudioTTS} {
			m := h.create(op, samples[op])
			out = append(out, jsonText(m["task_id"]), jsonText(m["id"]), jsonText(m["seed"]), jsonText(m["credits"]), jsonText(m["state"]))
			id := h.createID(op, samples[op])
			ids = append(ids, id)
		}
		for range 20 {
			h.advance(time.Minute)
			for _, id := range ids {
				r := h.get(id)
				out = append(out, r.State+r.ErrCode)
			}
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("two runs differ:\n%v\n%v", a, b)
	}
}

// Cancelling a task that holds back the queue lets the tasks behind it that
// are already due start at once, not at some later unrelated event.
func TestCancelReleasesTheQueue(t *testing.T) {
	for seed := int64(1); seed < 200; seed++ {
		h := newHarness(t, Config{Seed: seed})
		a := h.createID(api.OpText2Video, samples[api.OpText2Video])
		b := h.createID(api.OpText2Video, samples[api.OpText2Video])
		var ua, ub unit
		h.srv.withState(func(st *state, _ time.Time) error { ua, ub = *st.byID[a], *st.byID[b]; return nil })
		if !ub.EligibleAt.Before(ua.EligibleAt) {
			continue // a does not hold b back with this seed
		}
		// b is due but waits behind a, which is not ready yet.
		h.clock.Set(ub.EligibleAt.Add(time.Millisecond))
		if s := h.get(b).State; s != api.StateQueueing {
			t.Fatalf("seed %d: b is %s while a holds it back", seed, s)
		}
		if err := h.client.Cancel(t.Context(), a); err != nil {
			t.Fatal(err)
		}
		if s := h.get(b).State; s != api.StateProcessing {
			t.Errorf("seed %d: after a was cancelled b is %s, want processing", seed, s)
		}
		return
	}
	t.Fatal("no seed made a task hold another back")
}

// The sandbox holds at least 100,000 units. Past its bound it forgets the
// tasks that finished first, whenever they were submitted, and never one in
// flight; a state read back from its file forgets in the same order.
func TestOldFinishedTasksAreForgottenPastTheBound(t *testing.T) {
	if maxUnits < 100_000 {
		t.Fatalf("the sandbox holds %d units, want at least 100,000", maxUnits)
	}
	st := newState(1, nil)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	task := func(id, s string, finished time.Time) {
		st.Seq++
		st.add(&unit{ID: id, Seq: st.Seq, Kind: kindTask, State: s, UpdatedAt: finished})
	}
	// "first" is submitted first and finishes last.
	task("first", api.StateProcessing, time.Time{})
	for i := range maxUnits - 1 {
		task(fmt.Sprint(i), api.StateSuccess, at(i))
	}
	st.set(st.byID["first"], api.StateSuccess, at(maxUnits))
	for i := range 10 {
		task(fmt.Sprint("running", i), api.StateProcessing, time.Time{})
	}
	if want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}; !slices.Equal(st.dropped, want) {
		t.Errorf("forgot %v, want %v", st.dropped, want)
	}
	if st.byID["first"] == nil || st.byID["10"] == nil || st.byID["running9"] == nil {
		t.Error("forgot a task that finished later, or one in flight")
	}
	st.compact()
	if len(st.Units) != maxUnits || st.Units[0].ID != "first" || st.Units[1].ID != "10" {
		t.Errorf("%d units kept, from %s, %s", len(st.Units), st.Units[0].ID, st.Units[1].ID)
	}

	st.index() // as after reading the state file
	st.dropped = nil
	task("running10", api.StateProcessing, time.Time{})
	if want := []string{"10"}; !slices.Equal(st.dropped, want) {
		t.Errorf("read back, the state forgot %v, want %v", st.dropped, want)
	}

	busy := newState(1, nil)
	for i := range maxUnits + 1 {
		busy.add(&unit{ID: fmt.Sprint(i), Seq: int64(i), Kind: kindTask, State: api.StateQueueing, Queued: true})
	}
	if len(busy.byID) != maxUnits+1 || len(busy.dropped) != 0 {
		t.Errorf("with every task in flight, %d held and %d forgotten", len(busy.byID), len(busy.dropped))
	}
}

// The bound holds memory too, in a long run that nobody lists: the tasks
// forgotten are taken out of what the sandbox holds once they are more than
// an eighth of it (so it holds at most 8/7 of the bound), not only when the
// list or a snapshot reads it whole.
func TestForgottenTasksLeaveMemoryWithoutAReader(t *testing.T) {
	st := newState(1, nil)
	most := 0
	for i := range maxUnits + maxUnits/4 {
		st.Seq++
		st.add(&unit{ID: fmt.Sprint(i), Seq: st.Seq, Kind: kindTask, State: api.StateSuccess, UpdatedAt: t0.Add(time.Duration(i) * time.Second)})
		most = max(most, len(st.Units))
	}
	if len(st.byID) != maxUnits || most > maxUnits*8/7+1 {
		t.Errorf("after %d tasks %d remembered and up to %d held, want %d and at most %d",
			maxUnits+maxUnits/4, len(st.byID), most, maxUnits, maxUnits*8/7+1)
	}
}

// A failed trending-replicate task keeps the progress it had reached.
func TestFailedTaskKeepsItsProgress(t *testing.T) {
	h := newHarness(t, Config{FailRate: 1})
	id := h.createID(api.OpTrendingReplicate, samples[api.OpTrendingReplicate])
	h.advance(time.Hour)
	r := h.get(id)
	var u unit
	h.srv.withState(func(st *state, _ time.Time) error { u = *st.byID[id]; return nil })
	want := int(100 * float64(u.ProcDur) / float64(u.PlanDur))
	if r.State != api.StateFailed || r.Progress == nil || int(*r.Progress) != min(want, 99) || want >= 100 {
		t.Errorf("failed task: state %s progress %v, want %d", r.State, r.Progress, want)
	}
}
