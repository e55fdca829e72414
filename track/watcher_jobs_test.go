package track

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
)

// jobAnswers answers every read of a multi-scene job with the next body
// (the last repeats) and counts the reads.
type jobAnswers struct {
	mu     sync.Mutex
	bodies []string
	reads  int
}

func (j *jobAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.reads++
	w.Write([]byte(j.bodies[0]))
	if len(j.bodies) > 1 {
		j.bodies = j.bodies[1:]
	}
}

func job(state string, records string) string {
	return `{"id":"j1","type":"general_one_click","state":"` + state + `","job_records":[` + records + `]}`
}

// A multi-scene job is followed through its states; one that succeeded
// while a scene's newest version is still being made stays followed until
// that version ends. A record without versions is no version under way.
func TestJobFollowedUntilItsNewestVersionEnds(t *testing.T) {
	scene := func(states ...string) string {
		var jobs []string
		for i, s := range states {
			jobs = append(jobs, `{"id":"s1-`+string(rune('a'+i))+`","type":"generate_video","state":"`+s+`"}`)
		}
		return `{"type":"generate_video","index":0,"jobs":[` + strings.Join(jobs, ",") + `]}`
	}
	empty := `{"type":"compose_video","index":1,"jobs":[]}`
	srv := &jobAnswers{bodies: []string{
		job("", ""),
		job("processing", scene("processing")+","+empty),
		job("success", scene("success", "processing")+","+empty),
		job("success", scene("success", "success")+","+empty),
	}}
	c, store, clk := setup(t, srv)
	w := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(time.Second)})
	w.Watch("j1", api.OpGeneralOneClick, "", api.StateCreated, clk.Now())
	var states []string
	for _, e := range run(t, w, clk, clk.Now().Add(time.Hour)) {
		states = append(states, e.To)
	}
	if got := strings.Join(states, " "); got != "processing success success" {
		t.Errorf("events %q, want processing, success, then success again when the edit ended", got)
	}
	if srv.reads != 4 || w.Watching() != 0 {
		t.Errorf("%d reads, %d followed; want 4 reads, then none followed", srv.reads, w.Watching())
	}
}

// every is a schedule that reads each task once per period, whatever its state.
func every(d time.Duration) *Schedule {
	// A third of 3d is d: no first read of a running task waits longer.
	priors := map[api.Operation]time.Duration{api.OpGeneralOneClick: 3 * d, api.OpReference2Image: 3 * d}
	return &Schedule{FirstPoll: d, MinInterval: d, MaxInterval: d, QueueCheckMin: d, QueueCheckMax: d, Slots: 5,
		Priors: priors, rand: func() float64 { return 0.5 }}
}

// A task followed already processing (after a restart) counts its running
// time from then: when it succeeds, the schedule learns that time, its end
// taken halfway between the read that saw it and the one before.
func TestTaskFollowedProcessingTeachesItsRunningTime(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	sched := every(10 * time.Second)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 3)
	w := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: sched})
	start := clk.Now()
	for _, id := range ids {
		svc.states[id] = []string{"processing", "processing", "success"}
		w.Watch(id, api.OpReference2Image, "svcq2", api.StateProcessing, start)
	}
	var took time.Duration
	for _, e := range run(t, w, clk, start.Add(time.Hour)) {
		if e.To == api.StateSuccess {
			took = e.At.Sub(start)
		}
	}
	// Reads every 10 s (less the jitter's 5 %): the end is halfway
	// between the last two, 4.75 s before the read that saw it.
	want := took - 4750*time.Millisecond
	if low, typical := sched.expected(api.OpReference2Image, "svcq2"); took == 0 || low != want || typical != want {
		t.Errorf("learned %v / %v, want the %v from following to halfway before the success was seen", low, typical, want)
	}
}

// A task followed already queueing (after a restart) is the one read at
// once when a running task of the account finishes and frees a slot.
func TestTaskFollowedQueueingGetsTheFreedSlot(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	oneSlot := DefaultSchedule()
	oneSlot.Slots = 1
	w := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: oneSlot})
	svc.states[ids[0]] = []string{"success"}
	svc.states[ids[1]] = []string{"processing"}
	w.Watch(ids[0], api.OpReference2Image, "svcq2", api.StateProcessing, t0)
	w.Watch(ids[1], api.OpReference2Image, "svcq2", api.StateQueueing, t0.Add(time.Second))
	readNow(t, w, ids[0])
	if svc.reads[ids[1]] != 1 {
		t.Errorf("the queued task was read %d times when the slot freed, want 1", svc.reads[ids[1]])
	}
}

// The schedule learns how long an operation runs from when a task started
// processing (as early as the reads allow: the read before the one that
// saw it processing) to its success (halfway between the last two reads),
// not from its creation or its queueing; a failed task teaches nothing.
func TestScheduleLearnsFromProcessingToSuccess(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	sched := every(10 * time.Second)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: sched}, 4)
	for _, id := range ids[:3] {
		svc.states[id] = []string{"queueing", "queueing", "processing", "processing", "success"}
	}
	svc.states[ids[3]] = []string{"queueing", "processing", "failed"}
	var queueing, processing, success time.Time
	for _, e := range run(t, w, clk, t0.Add(time.Hour)) {
		switch {
		case e.TaskID == ids[0] && e.To == api.StateQueueing:
			queueing = e.At
		case e.TaskID == ids[0] && e.To == api.StateProcessing:
			processing = e.At
		case e.TaskID == ids[0] && e.To == api.StateSuccess:
			success = e.At
		}
	}
	// Seen queueing, queueing, processing, processing, success, a read
	// about every 10 s: it started after the read before the one that saw
	// it processing (up to 10 s before that one), and ended halfway
	// between the last two reads (about 5 s before the success was seen).
	seen := success.Sub(processing)
	if low, typical := sched.expected(api.OpReference2Image, "svcq2"); seen <= 0 || low < seen-5*time.Second || typical > seen+10*time.Second {
		t.Errorf("learned %v / %v, want about the %v from processing to success (seen queueing %v before processing)", low, typical, seen, processing.Sub(queueing))
	}
	sched.mu.Lock()
	n := len(sched.learned[key(api.OpReference2Image, "svcq2")])
	sched.mu.Unlock()
	if n != 3 {
		t.Errorf("%d running times learned, want the 3 successes", n)
	}
}
