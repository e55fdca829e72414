package studio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// setService is a live service whose answer to each request depends on
// its prompt: "fail" fails, "refuse" is refused (400), "busy" is refused
// for now (429) the first time, "vanish" gets no answer the client can
// trust (502), "slow" never ends; anything else succeeds. A task it did
// not create (one a test put in history) reads as success, unless its id
// starts with "gone", which the service does not know (404).
type setService struct {
	mu    sync.Mutex
	posts map[string]int    // prompt -> creations asked
	tasks map[string]string // task id -> prompt
}

func newSetService() *setService {
	return &setService{posts: map[string]int{}, tasks: map[string]string{}}
}

func (s *setService) refuse(w http.ResponseWriter, status int, reason string) {
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"code":%d,"reason":%q,"message":"refused by the test service","metadata":{}}`, status, reason)
}

func (s *setService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost {
		var body struct{ Prompt string }
		json.NewDecoder(r.Body).Decode(&body)
		s.posts[body.Prompt]++
		switch {
		case body.Prompt == "refuse":
			s.refuse(w, http.StatusBadRequest, api.ReasonBadRequest)
			return
		case body.Prompt == "busy" && s.posts["busy"] == 1:
			s.refuse(w, http.StatusTooManyRequests, api.ReasonTooManyRequests)
			return
		case body.Prompt == "vanish":
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		id := fmt.Sprintf("t%d", len(s.tasks)+1)
		s.tasks[id] = body.Prompt
		fmt.Fprintf(w, `{"task_id":%q,"state":"created","credits":3,"created_at":"2026-11-26T12:00:00Z"}`, id)
		return
	}
	id := strings.Split(r.URL.Path, "/")[4]
	prompt := s.tasks[id]
	switch {
	case strings.HasPrefix(id, "gone"):
		s.refuse(w, http.StatusNotFound, api.ReasonTaskNotFound)
	case prompt == "slow":
		fmt.Fprintf(w, `{"id":%q,"state":"processing","err_code":"","credits":3,"creations":[]}`, id)
	case prompt == "fail":
		fmt.Fprintf(w, `{"id":%q,"state":"failed","err_code":"InternalServiceFailure","credits":0,"creations":[]}`, id)
	default:
		fmt.Fprintf(w, `{"id":%q,"state":"success","err_code":"","credits":3,"creations":[{"id":"0","url":"http://127.0.0.1:1/%s.mp4"}]}`, id, id)
	}
}

func (s *setService) postsOf(prompt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts[prompt]
}

// openSetStudio opens a live studio on svc that reads tasks every few
// milliseconds, and makes a refused-for-now line wait a millisecond.
func openSetStudio(t *testing.T, svc *setService) *studio.Studio {
	t.Helper()
	isolated(t)
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	cfg := resolved(t, studio.Config{APIKey: "key-0123456789", BaseURL: srv.URL})
	fast := &track.Schedule{FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: 2 * time.Millisecond,
		QueueCheckMin: time.Millisecond, QueueCheckMax: 2 * time.Millisecond, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpText2Video: time.Millisecond}}
	s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true,
		Watcher: track.WatcherOptions{RequestsPerSecond: 1000, Burst: 100, Schedule: fast}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	pause := studio.SetRetryPause
	studio.SetRetryPause = time.Millisecond
	t.Cleanup(func() { studio.SetRetryPause = pause })
	return s
}

func setRequests(prompts ...string) []studio.SetRequest {
	var reqs []studio.SetRequest
	for i, p := range prompts {
		reqs = append(reqs, studio.SetRequest{Line: i + 1, Op: api.OpText2Video, Body: map[string]any{"model": "svcq3-pro", "prompt": p}})
	}
	return reqs
}

// setRecorder keeps what a run says.
type setRecorder struct {
	mu        sync.Mutex
	notes     []string
	said      []string
	last      studio.SetProgress
	maxActive int
}

func (rec *setRecorder) attach(run *studio.SetRun) {
	run.Note = func(format string, args ...any) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.notes = append(rec.notes, fmt.Sprintf(format, args...))
	}
	run.Say = func(format string, args ...any) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.said = append(rec.said, fmt.Sprintf(format, args...))
	}
	run.Progress = func(p studio.SetProgress) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.last = p
		rec.maxActive = max(rec.maxActive, p.AtService)
	}
}

func (rec *setRecorder) noted(prefix string) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, n := range rec.notes {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

func runSet(t *testing.T, s *studio.Studio, reqs []studio.SetRequest, untilSent bool) (*studio.SetRun, *setRecorder, int64, error) {
	t.Helper()
	ctx := context.Background()
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "", "test", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	run := s.NewSetRun(id, "batch", reqs)
	run.UntilSent = untilSent
	rec := &setRecorder{}
	rec.attach(run)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return run, rec, id, run.Run(ctx)
}

// A set's lines end as the service says: done, failed (a refusal
// included), or unknown when the creation got no answer clapper can trust
// (never sent again). A line refused for now (429) is sent again. Each
// line's news names it, with its label when it has one; at most five are
// at the service at once.
func TestSetRunEndsEachLineAsTheServiceSays(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	reqs := setRequests("ok", "fail", "refuse", "busy", "vanish", "ok")
	reqs[0].Label = "seed=7"
	run, rec, _, err := runSet(t, s, reqs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := studio.SetProgress{Total: 6, Done: 3, Failed: 2, Unknown: 1}
	if rec.last != want {
		t.Errorf("progress at the end %+v, want %+v", rec.last, want)
	}
	if svc.postsOf("busy") != 2 || svc.postsOf("vanish") != 1 || svc.postsOf("refuse") != 1 || svc.postsOf("ok") != 2 {
		t.Errorf("creations sent: %v; want busy twice (429, then taken), every other line once", svc.posts)
	}
	for prefix, want := range map[string]string{
		"line 1 (seed=7): task t1 (#1) created": "",
		"line 1 (seed=7): task t1 success":      "",
		"line 2: task":                          "created",
		"line 2: task t2 failed":                "(InternalServiceFailure: The service failed internally",
		"line 3: ":                              "BadRequest",
		"line 4: ":                              "sent again later",
		"line 5: ":                              "",
	} {
		if n := rec.noted(prefix); n == "" || !strings.Contains(n, want) {
			t.Errorf("no note %q…%q in %q", prefix, want, rec.notes)
		}
	}
	if n := rec.noted("line 2 ("); n != "" {
		t.Errorf("a line without a label is noted with one: %q", n)
	}
	sum := run.Summary(context.Background())
	if len(rec.said) != 1 || rec.said[0] != "at most 5 at the service at once; the rest wait here" {
		t.Errorf("the run said %q", rec.said)
	}
	if sum.Kind != "batch" || sum.Done != 3 || sum.Failed != 2 || sum.Unknown != 1 || sum.Waiting != 0 || sum.Credits != 9 || len(sum.Lines) != 6 {
		t.Errorf("summary %+v", sum)
	}
	if l := sum.Lines[0]; l.Line != 1 || l.Label != "seed=7" || l.TaskID != "t1" || l.State != api.StateSuccess {
		t.Errorf("summary's first line %+v", l)
	}
	if taskID, res := run.Result(1); taskID != "t1" || res == nil || len(res.Creations) != 1 {
		t.Errorf("line 1's result: %s %+v", taskID, res)
	}
}

// No more than five of a set are at the service at once, and a set of
// exactly five sends them all without saying that any wait.
func TestSetRunKeepsFiveAtTheService(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	_, rec, _, err := runSet(t, s, setRequests("ok", "ok", "ok", "ok", "ok", "ok", "ok"), false)
	if err != nil {
		t.Fatal(err)
	}
	if rec.maxActive != studio.SetSlots || rec.last.Done != 7 {
		t.Errorf("at most %d at the service at once, %d done; want %d at once and 7 done", rec.maxActive, rec.last.Done, studio.SetSlots)
	}
	_, rec, _, err = runSet(t, s, setRequests("ok", "ok", "ok", "ok", "ok"), false)
	if err != nil || rec.last.Done != 5 {
		t.Fatalf("five lines: %v, progress %+v", err, rec.last)
	}
	if len(rec.said) != 0 {
		t.Errorf("five lines, all sent at once, yet the run said %q", rec.said)
	}
}

// With UntilSent the run ends once its last line is sent, however long
// the tasks run; without it, it follows them to the end.
func TestSetRunUntilSentStopsAtTheLastSend(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	_, rec, _, err := runSet(t, s, setRequests("slow", "ok"), true)
	if err != nil {
		t.Fatalf("until sent: %v", err)
	}
	if rec.last.Waiting != 0 || rec.last.Done+rec.last.AtService != 2 {
		t.Errorf("until sent: progress %+v", rec.last)
	}
	id, _, err := s.Record().OpenSet(context.Background(), record.SetBatch, "", "slow", studio.SetMembers(setRequests("slow")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.NewSetRun(id, "batch", setRequests("slow")).Run(ctx); !errors.Is(err, studio.ErrSetStopped) {
		t.Errorf("a run following a task that never ends, stopped: %v, want ErrSetStopped", err)
	}
}

// A set taken up again sends only what was never sent or was refused for
// now, follows what is at the service, and keeps what ended (a refusal as
// failed, a creation of unknown outcome as unknown, a success); a task the
// service no longer knows ends its line as failed.
func TestSetRunTakesUpWhereHistoryStands(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx := context.Background()
	reqs := setRequests("never sent", "refused for now", "refused", "unknown", "done", "running", "forgotten", "unknown too", "never sent 2", "never sent 3")
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "", "again", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	recordLine := func(line int) int64 {
		t.Helper()
		raw, _ := json.Marshal(reqs[line-1].Body)
		lid, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: raw, Set: &record.SetLine{SetID: id, Line: line}})
		if err != nil {
			t.Fatal(err)
		}
		return lid
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Record().MarkRejected(ctx, recordLine(2), record.Rejection{Status: 429, Reason: api.ReasonTooManyRequests, Retryable: true}))
	must(s.Record().MarkRejected(ctx, recordLine(3), record.Rejection{Status: 400, Reason: api.ReasonBadRequest}))
	recordLine(4) // sent, no answer recorded
	recordLine(8)
	must(s.Record().MarkSubmitted(ctx, recordLine(5), record.SubmittedEcho{TaskID: "done-5", State: api.StateSuccess, Credits: 3}))
	must(s.Record().MarkSubmitted(ctx, recordLine(6), record.SubmittedEcho{TaskID: "run-6", State: api.StateProcessing}))
	must(s.Record().MarkSubmitted(ctx, recordLine(7), record.SubmittedEcho{TaskID: "gone-7", State: api.StateProcessing}))
	// The service has not known gone-7 for a while: one more answer so
	// makes it lost.
	for range 2 {
		if _, err := s.Record().RecordNotFound(ctx, "gone-7", time.Now().Add(-time.Hour), api.ReasonTaskNotFound, 3, track.LostWindow); err != nil {
			t.Fatal(err)
		}
	}

	// What a resumed batch is priced and checked against the caps by is
	// what the run sends: one rule.
	unsent, err := s.Unsent(ctx, id, reqs)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, r := range unsent {
		lines = append(lines, r.Line)
	}
	if !slices.Equal(lines, []int{1, 2, 9, 10}) {
		t.Errorf("unsent lines %v, want 1, 2 (refused for now), 9 and 10", lines)
	}

	run := s.NewSetRun(id, "batch", reqs)
	rec := &setRecorder{}
	rec.attach(run)
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := run.Run(rctx); err != nil {
		t.Fatalf("%v; notes %q, progress %+v", err, rec.notes, rec.last)
	}
	for _, p := range []string{"never sent", "refused for now", "never sent 2", "never sent 3"} {
		if svc.postsOf(p) != 1 {
			t.Errorf("line %q sent %d times when taken up, want once", p, svc.postsOf(p))
		}
	}
	if len(svc.posts) != 4 {
		t.Errorf("creations sent when taken up: %v; want the lines never sent and the one refused for now", svc.posts)
	}
	// Four to send and two at the service: one of them waits here.
	if strings.Join(rec.said, "; ") != "batch sent before: 4 ended, 2 followed; 4 to send; at most 5 at the service at once; the rest wait here" {
		t.Errorf("the run said %q", rec.said)
	}
	want := studio.SetProgress{Total: 10, Done: 6, Failed: 2, Unknown: 2}
	if rec.last != want {
		t.Errorf("progress at the end %+v, want %+v", rec.last, want)
	}
	if n := rec.noted("line 7: the service does not know task gone-7"); n == "" {
		t.Errorf("no note of the lost task in %q", rec.notes)
	}
	if n := rec.noted("line 6: task run-6 success"); n == "" {
		t.Errorf("no note of the followed task's end in %q", rec.notes)
	}
}

// A set's price sums what is known; with some lines unpriced the sum is a
// floor that still counts as known when it is above zero, and says how
// many were priced.
func TestSetPriceIsAFloorWhenSomeAreUnknown(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx := context.Background()
	// One earlier svcq3-pro task of 40 credits prices the svcq3-pro lines;
	// svcq1 has none.
	raw := []byte(`{"model":"svcq3-pro","prompt":"p"}`)
	lid, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: raw})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().MarkSubmitted(ctx, lid, record.SubmittedEcho{TaskID: "old", State: api.StateSuccess, Credits: 40}); err != nil {
		t.Fatal(err)
	}
	priced := setRequests("a", "b")
	unpriced := studio.SetRequest{Line: 3, Op: api.OpText2Video, Body: map[string]any{"model": "svcq1", "prompt": "c"}}
	for _, c := range []struct {
		reqs  []studio.SetRequest
		known bool
		price int64
		text  string
	}{
		{priced, true, 80, "80 credits"},
		{append(priced[:1:1], unpriced), true, 40, "at least 40 credits (1 of 2 priced: the service publishes no price table)"},
		{[]studio.SetRequest{unpriced, unpriced}, false, 0, "at least 0 credits (0 of 2 priced: the service publishes no price table)"},
	} {
		p := s.SetPrice(c.reqs)
		if p.Known != c.known || p.Credits != c.price || p.Text != c.text {
			t.Errorf("SetPrice of %d lines = %+v, want %v %d %q", len(c.reqs), p, c.known, c.price, c.text)
		}
	}
}

// A set taken up with every line at the service sends nothing and says
// nothing waits here.
func TestSetRunTakenUpAllAtTheService(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx := context.Background()
	reqs := setRequests("a", "b", "c", "d", "e", "f")
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "", "running", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		raw, _ := json.Marshal(r.Body)
		lid, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: raw, Set: &record.SetLine{SetID: id, Line: r.Line}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record().MarkSubmitted(ctx, lid, record.SubmittedEcho{TaskID: fmt.Sprint("run-", r.Line), State: api.StateProcessing}); err != nil {
			t.Fatal(err)
		}
	}
	run := s.NewSetRun(id, "batch", reqs)
	rec := &setRecorder{}
	rec.attach(run)
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := run.Run(rctx); err != nil {
		t.Fatal(err)
	}
	if len(svc.posts) != 0 || rec.last.Done != 6 {
		t.Errorf("sent %v, progress %+v; want nothing sent and six done", svc.posts, rec.last)
	}
	if strings.Join(rec.said, "; ") != "batch sent before: 0 ended, 6 followed; 0 to send" {
		t.Errorf("the run said %q", rec.said)
	}
}

// A line refused for now while none of the set runs is sent again after a
// pause: nothing else would wake the run.
func TestSetRunRetriesALoneRefusalAfterAPause(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx := context.Background()
	reqs := setRequests("busy")
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "", "busy", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.NewSetRun(id, "batch", reqs).Run(rctx); err != nil || svc.postsOf("busy") != 2 {
		t.Errorf("a lone line refused for now: %v after %d sends, want done after 2", err, svc.postsOf("busy"))
	}
}
