package studio_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// startSandbox starts a sandbox studio whose watcher reads due tasks every
// millisecond of wall time, on clk.
func startSandbox(t *testing.T, cfg studio.Config, clk *sandbox.FakeClock) *studio.Studio {
	t.Helper()
	fast := &track.Schedule{FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: time.Millisecond,
		QueueCheckMin: time.Millisecond, QueueCheckMax: time.Millisecond, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpReference2Image: time.Millisecond, api.OpGeneralOneClick: time.Millisecond}}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now, Sandbox: &sandbox.Config{Clock: clk, Seed: 11},
		Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100, Schedule: fast}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// endedOn waits for the events saying each of ids ended, advancing clk,
// and returns every event seen.
func endedOn(t *testing.T, s *studio.Studio, clk *sandbox.FakeClock, ids ...string) []track.Event {
	t.Helper()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var seen []track.Event
	deadline := time.After(20 * time.Second)
	for len(want) > 0 {
		select {
		case ev := <-s.Events():
			seen = append(seen, ev)
			if ev.Kind == track.EventState && api.IsTerminal(ev.To) {
				delete(want, ev.TaskID)
			}
		case <-time.After(time.Millisecond):
			clk.Advance(time.Minute)
		case <-deadline:
			t.Fatalf("tasks %v did not end; events %+v", want, seen)
		}
	}
	return seen
}

// A task the running studio sees succeed has its results queued for
// download, named by the day it was created (not the day it ended); a
// multi-scene job its composed video. Nothing is queued with auto-download
// off.
func TestStartedStudioQueuesWhatSucceeds(t *testing.T) {
	ctx := context.Background()
	// Created seconds before midnight (UTC), it ends the next day.
	t0 := time.Date(2026, 11, 26, 23, 59, 50, 0, time.UTC)
	t.Run("auto-download on", func(t *testing.T) {
		isolated(t)
		clk := sandbox.NewFakeClock(t0)
		s := startSandbox(t, resolved(t, studio.Config{}), clk)
		img, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
		if err != nil {
			t.Fatal(err)
		}
		job, err := s.Submit(ctx, api.OpGeneralOneClick, map[string]any{"prompt": "a day at the sea", "duration": 25, "images": []any{"https://example.com/a.png"}})
		if err != nil {
			t.Fatal(err)
		}
		endedOn(t, s, clk, img.Task.Identifier(), job.Task.Identifier())
		dls, err := s.Record().Downloads(ctx, img.Task.Identifier())
		if err != nil || len(dls) != 1 || !strings.HasPrefix(filepath.Base(dls[0].Path), "2026-11-26_") {
			t.Errorf("the image's downloads: %+v, %v; want one, named by its day of creation", dls, err)
		}
		if dls, err := s.Record().Downloads(ctx, job.Task.Identifier()); err != nil || len(dls) != 1 {
			t.Errorf("the job's downloads: %+v, %v; want its composed video", dls, err)
		}
	})
	t.Run("auto-download off", func(t *testing.T) {
		isolated(t)
		off := false
		if _, err := studio.SaveSettings(studio.Settings{AutoDownload: &off}); err != nil {
			t.Fatal(err)
		}
		clk := sandbox.NewFakeClock(t0)
		s := startSandbox(t, resolved(t, studio.Config{}), clk)
		img, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
		if err != nil {
			t.Fatal(err)
		}
		endedOn(t, s, clk, img.Task.Identifier())
		if dls, _ := s.Record().Downloads(ctx, img.Task.Identifier()); len(dls) != 0 {
			t.Errorf("auto-download off, yet %d downloads queued", len(dls))
		}
	})
}

// A studio started over a history with a task in flight follows it, and
// reports no failure when loading it went well.
func TestStartFollowsWhatHistoryHoldsInFlight(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	cfg := resolved(t, studio.Config{})
	clk := sandbox.NewFakeClock(wiringT0)
	first := openSandbox(t, cfg, clk)
	submitImage(t, first)
	first.Close()
	s, err := studio.Open(ctx, cfg, studio.Options{Clock: clk.Now, Sandbox: &sandbox.Config{Clock: clk, Seed: 11},
		Watcher: track.WatcherOptions{Clock: clk}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Watching() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := s.Watching(); n != 1 {
		t.Fatalf("the started studio follows %d tasks, want the one in flight", n)
	}
	select {
	case ev := <-s.Events():
		t.Errorf("an event after a load that went well: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}

// Close releases the history and the connections to the service: nothing
// is left open behind a closed studio.
func TestCloseReleasesHistoryAndConnections(t *testing.T) {
	isolated(t)
	var open atomic.Int32
	srv := httptest.NewUnstartedServer(&bodyRecorder{})
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{APIKey: "key-0123456789", BaseURL: srv.URL}), studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record().Task(context.Background(), 1); err == nil || errors.Is(err, record.ErrNotFound) {
		t.Errorf("the history answers after Close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for open.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d connections to the service left open after Close", n)
	}
}

// A reference2video request naming a stored subject neither the library
// nor the service knows is refused before anything is sent; one the
// service knows is sent and joins the library.
func TestUnknownStoredSubjectIsRefusedBeforeSending(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	body := func(id string) map[string]any {
		return map[string]any{"model": "svcq3", "prompt": "[@Ada] walks", "duration": 5,
			"subjects": []any{map[string]any{"server_id": id, "name": "Ada"}}}
	}
	_, err := s.Send(ctx, api.OpReference2Video, body("no-such-subject"))
	var unknown *studio.UnknownSubjectError
	if !errors.As(err, &unknown) || unknown.ID != "no-such-subject" || unknown.Index != 0 {
		t.Fatalf("an unknown stored subject: %v", err)
	}
	if page, _ := s.Record().Tasks(ctx, record.Filter{}); len(page.Tasks) != 0 {
		t.Errorf("%d requests recorded for a refused subject", len(page.Tasks))
	}
	sb, err := s.Service().CreateSubject(ctx, map[string]any{"name": "Ada", "images": []any{"https://example.com/ada.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(ctx, api.OpReference2Video, body(sb.ID)); err != nil {
		t.Fatalf("a subject the service knows: %v", err)
	}
	if lib, _ := s.Subjects(ctx); len(lib) != 1 || lib[0].ID != sb.ID {
		t.Errorf("the library after the send: %+v", lib)
	}
}

// A studio that cannot read what history holds in flight says so on its
// events, as a failed read naming what failed.
func TestStartReportsAFailedLoad(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk}, ChangeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Record().Close() // the history is gone from under the studio
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev := <-s.Events():
			if ev.Kind == track.EventPollFailed && ev.Err != nil && strings.HasPrefix(ev.Err.Error(), "follow the tasks in flight: ") {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no event says the tasks in flight could not be loaded")
		}
	}
}
