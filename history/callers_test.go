package history

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Methods the studio, the tracker and the downloader lean on, tested here
// on their own terms so that history's own tests catch a slip in them.

// "Last time" is the newest successful, charged task of the same operation
// and model whose request matches; failed, free, other-model and
// non-matching tasks are passed over.
func TestLastCostIsTheNewestMatchingSuccess(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	finish := func(id, model, body, state string, credits int64) {
		t.Helper()
		local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Model: model, Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: id, Credits: credits}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyResult(ctx, id, record.Update{State: state, Credits: credits}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
	}
	finish("old", "svcq1", `{"prompt":"a","duration":5}`, api.StateSuccess, 40)
	finish("ten", "svcq1", `{"prompt":"b","duration":10}`, api.StateSuccess, 80)
	finish("match", "svcq1", `{"prompt":"c","duration":5}`, api.StateSuccess, 45)
	finish("failed", "svcq1", `{"prompt":"d","duration":5}`, api.StateFailed, 45)
	finish("free", "svcq1", `{"prompt":"e","duration":5}`, api.StateSuccess, 0)
	finish("other", "svcq2", `{"prompt":"f","duration":5}`, api.StateSuccess, 99)

	fiveSeconds := func(req map[string]any) bool { return req["duration"] == 5.0 }
	got, ok, err := s.LastCost(ctx, api.OpText2Video, "svcq1", fiveSeconds)
	if err != nil || !ok || got.TaskID != "match" || got.Credits != 45 || !got.CreatedAt.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("last cost %+v %v %v; want task match, 45 credits", got, ok, err)
	}
	if _, ok, _ := s.LastCost(ctx, api.OpText2Video, "svcq3", fiveSeconds); ok {
		t.Error("a model never used has a last cost")
	}
}

func TestAddCreditsChargesTheTask(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	local := submitted(t, s, "job", `{"prompt":"p"}`)
	for _, c := range []int64{30, 12} {
		if err := s.AddCredits(ctx, local, c); err != nil {
			t.Fatal(err)
		}
	}
	if task, _ := s.Task(ctx, local); task.Credits != 42 {
		t.Errorf("credits %d, want 42", task.Credits)
	}
	if err := s.AddCredits(ctx, local+100, 5); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
}

// Only a file a download finished is trusted as saved: not one still
// running, failed, or never downloaded.
func TestSavedFileIsAFinishedDownload(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	id := queuedDownload(t, s, "tk-a")
	saved := func(path string) bool {
		t.Helper()
		ok, err := s.SavedFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if saved("/dl/tk-a.mp4") {
		t.Error("a queued download's path is trusted")
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadFailed, Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if saved("/dl/tk-a.mp4") {
		t.Error("a failed download's path is trusted")
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Path: "/dl/tk-a (2).mp4"}); err != nil {
		t.Fatal(err)
	}
	if !saved("/dl/tk-a (2).mp4") || saved("/dl/tk-a.mp4") || saved("/etc/passwd") {
		t.Error("only the path the download finished at is trusted")
	}

	savedJobTask(t, s, api.StateSuccess)
	if ok, err := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/cut.mp4", time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if saved("/dl/cut.mp4") {
		t.Error("a version still being saved is trusted")
	}
	if err := s.FinishVersionDownload(ctx, "c-v1", "", 10, nil); err != nil {
		t.Fatal(err)
	}
	if !saved("/dl/cut.mp4") {
		t.Error("a saved version is not trusted")
	}
}

func TestDownloadSettled(t *testing.T) {
	for status, want := range map[record.DownloadStatus]bool{record.DownloadQueued: false, record.DownloadRunning: false,
		record.DownloadDone: true, record.DownloadFailed: true, record.DownloadExpired: true} {
		if (record.Download{Status: status}).Settled() != want {
			t.Errorf("%s settled: %v", status, !want)
		}
	}
}

// Saves of versions left unfinished: failed ones and running ones not
// renewed within stale (their run died), oldest first; not a fresh run, not
// a finished one.
func TestUnfinishedVersionDownloads(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	savedJobTask(t, s, api.StateSuccess)
	start := func(sub string) {
		t.Helper()
		if ok, err := s.StartVersionDownload(ctx, "job-1", sub, "/dl/"+sub+".mp4", time.Minute); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	start("s0-v1") // fails
	clk.Advance(time.Second)
	start("s1-v1") // dies while running
	clk.Advance(time.Second)
	start("c-v1") // finishes
	if err := s.FinishVersionDownload(ctx, "s0-v1", "", 0, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishVersionDownload(ctx, "c-v1", "", 5, nil); err != nil {
		t.Fatal(err)
	}
	subs := func() (out []string) {
		t.Helper()
		ds, err := s.UnfinishedVersionDownloads(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			out = append(out, d.SubJob+":"+string(d.Status))
		}
		return out
	}
	if got := subs(); len(got) != 1 || got[0] != "s0-v1:failed" {
		t.Errorf("with s1-v1 running for a second: %v", got)
	}
	clk.Advance(time.Minute)
	if got := subs(); len(got) != 2 || got[0] != "s1-v1:running" || got[1] != "s0-v1:failed" {
		t.Errorf("after s1-v1 went a minute without news: %v; want it, then the failed one", got)
	}
}

// Following a lost task again lists it in flight once more, and says
// whether it had been lost.
func TestRefollowBringsALostTaskBack(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-lost", `{}`)
	submitted(t, s, "tk-run", `{}`)
	for i := range 2 {
		if _, err := s.RecordNotFound(ctx, "tk-lost", t0.Add(time.Duration(i)*time.Second), "TaskNotFound", 2, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordNotFound(ctx, "tk-run", t0, "TaskNotFound", 2, 0); err != nil {
		t.Fatal(err)
	}
	if ids := inFlightIDs(t, s); len(ids) != 1 || ids[0] != "tk-run" {
		t.Fatalf("in flight before: %v", ids)
	}
	if was, err := s.Refollow(ctx, "tk-lost"); err != nil || !was {
		t.Errorf("refollow a lost task: was lost %v, %v", was, err)
	}
	if was, err := s.Refollow(ctx, "tk-run"); err != nil || was {
		t.Errorf("refollow a task with a short run: was lost %v, %v", was, err)
	}
	if ids := inFlightIDs(t, s); len(ids) != 2 {
		t.Errorf("in flight after: %v", ids)
	}
	if lost, _ := s.LostTask(ctx, "tk-lost"); lost {
		t.Error("still lost after a refollow")
	}
	if _, err := s.Refollow(ctx, "tk-nope"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("refollow an unknown task: %v", err)
	}
}

// A released lease is free at once: the next claim need not wait for it.
func TestReleasedPollerIsFreeAtOnce(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.ClaimPoller(ctx, "a", t0, time.Hour, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleasePoller(ctx, "b"); err != nil { // not the holder: nothing
		t.Fatal(err)
	}
	if holder, _ := s.ClaimPoller(ctx, "b", t0, time.Hour, nil); holder != "a" {
		t.Fatalf("a release by another freed the lease: %q", holder)
	}
	if err := s.ReleasePoller(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if holder, _ := s.ClaimPoller(ctx, "b", t0, time.Hour, nil); holder != "b" {
		t.Errorf("after the release: held by %q, want b", holder)
	}
}

// A POST that ended without an answer leaves its request unsent by anyone:
// of unknown outcome for every process from then on.
func TestStopSendingDropsTheSender(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"p"}`), Sender: "host/1/x"})
	if err != nil {
		t.Fatal(err)
	}
	if task, _ := s.Task(ctx, local); task.Sender != "host/1/x" {
		t.Fatalf("sender %q", task.Sender)
	}
	if err := s.StopSending(ctx, local); err != nil {
		t.Fatal(err)
	}
	if task, _ := s.Task(ctx, local); task.Sender != "" || !task.SenderBeat.IsZero() || task.State != record.StateSubmitting {
		t.Errorf("after StopSending: sender %q beat %v state %s", task.Sender, task.SenderBeat, task.State)
	}
}

// NotSent is a rejection of ReasonNotSent only: a request the service
// refused was sent.
func TestNotSentIsTheNotSentRejection(t *testing.T) {
	for _, c := range []struct {
		task record.Task
		want bool
	}{
		{record.Task{State: record.StateRejected, Rejection: &record.Rejection{Reason: record.ReasonNotSent}}, true},
		{record.Task{State: record.StateRejected, Rejection: &record.Rejection{Status: 400, Reason: "FieldInvalid"}}, false},
		{record.Task{State: record.StateRejected}, false},
		{record.Task{State: record.StateAbandoned, Rejection: &record.Rejection{Reason: record.ReasonNotSent}}, false},
	} {
		if c.task.NotSent() != c.want {
			t.Errorf("%+v: NotSent %v", c.task, !c.want)
		}
	}
}

// The benchmark and demo fixture: n tasks spread evenly over [from, to),
// exactly inFlight of them (the newest) in flight, prompts of words.
func TestWriteFixtureInFlight(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fixture.db")
	from := t0
	to := t0.Add(20 * time.Hour)
	if err := WriteFixtureInFlight(path, 20, 3, from, to); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	page, err := s.Tasks(ctx, record.Filter{Limit: 100, Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tasks) != 20 {
		t.Fatalf("%d tasks, want 20", len(page.Tasks))
	}
	for i, task := range page.Tasks {
		if want := from.Add(time.Duration(i) * time.Hour); !task.CreatedAt.Equal(want) {
			t.Errorf("task %d created %v, want %v", i, task.CreatedAt, want)
		}
		if task.Prompt == "" || strings.HasPrefix(task.Prompt, " ") || strings.Contains(task.Prompt, "  ") {
			t.Errorf("task %d prompt %q", i, task.Prompt)
		}
		inFlight := i >= 17
		if followed(task.State) != inFlight {
			t.Errorf("task %d (%s): in flight %v, want %v", i, task.State, !inFlight, inFlight)
		}
	}
	tasks, err := s.InFlight(ctx)
	if err != nil || len(tasks) != 3 || tasks[0].State != api.StateProcessing || tasks[1].State != api.StateQueueing {
		t.Errorf("in flight: %d, %v; want 3, processing and queueing in turn", len(tasks), err)
	}

	none := filepath.Join(t.TempDir(), "none.db")
	if err := WriteFixtureInFlight(none, 50, 0, from, to); err != nil {
		t.Fatal(err)
	}
	s, err = Open(none)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if tasks, err := s.InFlight(ctx); err != nil || len(tasks) != 0 {
		t.Errorf("a fixture with none in flight has %d in flight, %v", len(tasks), err)
	}
}
