package track

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
)

// Against the sandbox's fault injection (429 with and without Retry-After,
// 500s, and answers slower than the client's timeout) the watcher still
// follows every task to its end, each change reported once, in order.
func TestWatcherThroughSandboxFaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Speed: 500, Seed: 3, FailRate: 0.2,
		Rate429: 0.25, Rate5xx: 0.2, SlowRate: 0.1, SlowDelay: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client, _ := api.NewClient(base, "tok", api.WithTimeout(150*time.Millisecond),
		api.WithRetry(api.RetryPolicy{Attempts: 2, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxRetryAfter: time.Millisecond}))
	store, err := history.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	fast := &Schedule{FirstPoll: 10 * time.Millisecond, MinInterval: 10 * time.Millisecond, MaxInterval: 50 * time.Millisecond,
		QueueCheckMin: 50 * time.Millisecond, QueueCheckMax: 200 * time.Millisecond, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpReference2Image: 50 * time.Millisecond}}
	w := NewWatcher(client, store, WatcherOptions{RequestsPerSecond: 200, Burst: 20, Schedule: fast})
	tr := &Tracker{Client: client, Store: store}
	var ids []string
	for len(ids) < 8 {
		sub, err := tr.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
		if err != nil {
			continue // an injected fault refused the creation; it is in history as rejected
		}
		ids = append(ids, sub.Task.Identifier())
		w.Watch(sub.Task.Identifier(), api.OpReference2Image, "svcq2", sub.Task.State, time.Now())
	}
	go w.Run(ctx)
	last := map[string]string{}
	failedReads := 0
	for done := 0; done < len(ids); {
		select {
		case <-ctx.Done():
			t.Fatalf("only %d of %d tasks finished; last states %v", done, len(ids), last)
		case e := <-w.Events():
			if e.Kind == EventPollFailed {
				failedReads++
				continue
			}
			if api.StateRank(e.To) <= api.StateRank(last[e.TaskID]) && last[e.TaskID] != "" {
				t.Errorf("task %s went %s -> %s", e.TaskID, last[e.TaskID], e.To)
			}
			last[e.TaskID] = e.To
			if api.IsTerminal(e.To) {
				done++
			}
		}
	}
	if failedReads == 0 {
		t.Error("no read failed: the fault injection was not exercised")
	}
	for _, id := range ids {
		task, _ := store.TaskByID(context.Background(), id)
		if !api.IsTerminal(task.State) || (task.State == api.StateFailed) != (task.ErrCode != "") {
			t.Errorf("history of %s: %s %q", id, task.State, task.ErrCode)
		}
	}
	t.Logf("%d tasks settled through %d failed reads", len(ids), failedReads)
}

// Callbacks from the sandbox reach the receiver, verify, and have the task
// read at once: it finishes without waiting for the poll schedule.
func TestSandboxCallbacksFinishTasks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Speed: 1000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client, _ := api.NewClient(base, "tok")
	store, err := history.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// Reads so rare that only callbacks can finish the task in time.
	slow := &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour, QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
	w := NewWatcher(client, store, WatcherOptions{Schedule: slow})
	srv, ln, err := ListenCallbacks("127.0.0.1:0", &Receiver{Token: "tok", Watcher: w}, CallbackLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &Tracker{Client: client, Store: store, CallbackURL: "http://" + ln.Addr().String() + "/hook"}
	sub, err := tr.Submit(ctx, api.OpTiming2Audio, map[string]any{"model": "audio1.0",
		"timing_prompts": []any{map[string]any{"from": 0.0, "to": 1.0, "prompt": "bell"}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Watch(sub.Task.Identifier(), api.OpTiming2Audio, "audio1.0", sub.Task.State, time.Now())
	go w.Run(ctx)
	for {
		select {
		case <-ctx.Done():
			t.Fatal("no callback finished the task")
		case e := <-w.Events():
			if e.To == api.StateSuccess {
				// One read per callback at most (processing, success): the
				// schedule's first read is an hour away.
				if n := w.Requests(); n < 1 || n > 2 {
					t.Errorf("%d reads sent; want one per callback", n)
				}
				return
			}
		}
	}
}

// A result downloaded after its URL expired is fetched through a freshly
// signed URL from a re-read of the task.
func TestDownloadAfterExpiryFromSandbox(t *testing.T) {
	ctx := context.Background()
	clk := sandbox.NewFakeClock(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	srv, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hc := &http.Client{Transport: handlerTransport{srv}}
	client, _ := api.NewClient("http://sandbox.test", "tok", api.WithHTTPClient(hc))
	store, err := history.Open(filepath.Join(t.TempDir(), "h.db"), history.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tr := &Tracker{Client: client, Store: store, Clock: clk}
	sub, err := tr.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a kite", "aspect_ratio": "1:1"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	w := NewWatcher(client, store, WatcherOptions{Clock: clk})
	w.Watch(id, api.OpReference2Image, "svcq2", sub.Task.State, clk.Now())
	var res *api.TaskResult
	for res == nil {
		next := w.Step(ctx)
		for _, e := range drain(w) {
			if e.To == api.StateSuccess {
				res = e.Result
			}
		}
		if next.IsZero() {
			if res == nil {
				t.Fatal("task did not succeed")
			}
			break
		}
		clk.Set(next)
	}
	clk.Advance(25 * time.Hour) // the URL has lapsed
	if resp, err := hc.Get(res.Creations[0].URL); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("expired URL answered %v %v", resp.StatusCode, err)
	}
	dir := t.TempDir()
	d := &Downloader{Store: store, Client: client, HTTP: hc, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	if err := d.QueueResults(ctx, id, api.OpReference2Image, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	d.RunPending(ctx)
	dls, _ := store.Downloads(ctx, id)
	if len(dls) != 1 || dls[0].Status != record.DownloadDone {
		t.Fatalf("downloads %+v", dls)
	}
	data, _ := os.ReadFile(dls[0].Path)
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != cfg.Height {
		t.Errorf("downloaded %s: %v %dx%d", dls[0].Path, err, cfg.Width, cfg.Height)
	}
}
