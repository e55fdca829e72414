package mcp

// Tests written against hand-made mutants of mutants/mcp.txt that the
// earlier tests let live: each checks what an agent sees where the
// mutant would change it.

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// A saved file exactly at the resource bound is a clapper:// resource; one
// byte past it is a file:// link to open, saying the bound.
func TestTheResourceBoundIsExact(t *testing.T) {
	r := newRig(t, rigOpts{})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	r.call(t, "download_results", map[string]any{"task_id": c.TaskID})
	dls, err := r.st.Record().Downloads(t.Context(), c.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	var video record.Download
	for _, d := range dls {
		if d.Kind == record.KindURL && d.Status == record.DownloadDone {
			video = d
		}
	}
	if video.Bytes < 2 {
		t.Fatalf("no saved video: %+v", dls)
	}
	for _, tc := range []struct {
		bound int64
		file  bool
	}{{video.Bytes, false}, {video.Bytes - 1, true}} {
		srv, err := New(r.st, Options{MaxResourceBytes: tc.bound})
		if err != nil {
			t.Fatal(err)
		}
		l := srv.fileLink(video)
		if got := strings.HasPrefix(l.URI, "file://"); got != tc.file || got != strings.Contains(l.Description, "open the file") {
			t.Errorf("a %d-byte video with a bound of %d bytes: linked as %s (%q)", video.Bytes, tc.bound, l.URI, l.Description)
		}
	}
}

// An agent at its daily cap is refused before anything reaches the
// service: not even the image it names is uploaded.
func TestAnAgentAtItsCapUploadsNothing(t *testing.T) {
	r := newRig(t, rigOpts{cap: 30, counted: true, uploads: studio.UploadAlways})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox", "duration": 5}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	if done.State != api.StateSuccess || done.Credits <= 30 {
		t.Fatalf("the first task did not spend the cap: %+v", done)
	}
	img := filepath.Join(r.media, "start.png")
	writePNG(t, img, 320, 240)
	before := r.posts.Load()
	msg := r.refused(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "a red fox", "images": []string{img}})
	if !strings.Contains(msg, "credit cap for agent work is 30 credits") {
		t.Errorf("refused at the cap: %s", msg)
	}
	if n := r.posts.Load() - before; n != 0 {
		t.Errorf("%d request(s) reached the service after the cap was reached (the image uploaded)", n)
	}
}

// Two clients subscribed to one task are each told once per change: one
// follower serves both, not one each.
func TestTwoSubscribersAreToldOncePerChange(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Now())
	var mu sync.Mutex
	told := 0
	r := newRig(t, rigOpts{clock: clk, resourceUpdated: func(string) { mu.Lock(); told++; mu.Unlock() }})
	id := waitForRunning(t, r)
	uri := "clapper://task/" + id
	second := sdk.NewClient(&sdk.Implementation{Name: "second", Version: "1"}, nil)
	ct, stt := sdk.NewInMemoryTransports()
	if _, err := r.srv.SDK().Connect(t.Context(), stt, nil); err != nil {
		t.Fatal(err)
	}
	cs2, err := second.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	// The test's own look at the task's changes, from before the first
	// subscription: no follower can see more of them.
	task, err := r.st.Record().TaskByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	changes := r.st.Await(t.Context(), task)
	for _, cs := range []*sdk.ClientSession{r.cs, cs2} {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	waitSubscribed(t, r, uri, 2)
	clk.Advance(time.Hour)
	n := 0
	for range changes {
		n++
	}
	if n == 0 {
		t.Fatal("the task ended with no change seen")
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return told }
	for deadline := time.Now().Add(10 * time.Second); count() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	// A second follower's notices would come as fast as the first's.
	time.Sleep(300 * time.Millisecond)
	if got := count(); got == 0 || got > n {
		t.Errorf("told %d times of %d changes", got, n)
	}
}
