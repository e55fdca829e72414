package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// fastWatcher reads a task every millisecond: a sandbox at full speed
// finishes in milliseconds, so waits take no time.
var fastWatcher = track.WatcherOptions{RequestsPerSecond: 1000, Burst: 100, Schedule: &track.Schedule{
	FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond,
	QueueCheckMin: time.Millisecond, QueueCheckMax: 5 * time.Millisecond, Slots: 5,
	Priors: map[api.Operation]time.Duration{},
}}

type rigOpts struct {
	// counted runs the sandbox behind a server that counts the creation
	// POSTs it receives (the studio sees it as a live service).
	counted bool
	// slowFiles holds each result file the counted sandbox serves this
	// long before its first byte.
	slowFiles time.Duration
	cap       int64
	// productionWatcher follows tasks on the real schedule (benchmarks),
	// not every millisecond.
	productionWatcher bool
	// clock, when set, holds the sandbox's time still until the test moves
	// it, so a task is seen running however slow the machine is.
	clock *sandbox.FakeClock
	// server are the server's options (media roots and waits are the
	// rig's own); consent is Options.Consent, Unasked unless asked.
	server Options
	// elicit answers the server's questions as the person would; nil is
	// a client that cannot ask.
	elicit func(*sdk.ElicitParams) *sdk.ElicitResult
	// resourceUpdated sees each resource update notification.
	resourceUpdated func(uri string)
	// historyClock, when set, stamps the history's rows (tasks created at
	// one instant).
	historyClock func() time.Time
	// uploads is the studio's Config.Uploads (auto when empty).
	uploads string
}

type rig struct {
	st  *studio.Studio
	srv *Server
	// media is the folder given as --media-root: local files of the
	// tests live there.
	media string
	cs    *sdk.ClientSession
	posts atomic.Int64

	mu       sync.Mutex
	lastBody []byte
	progress []string
	// told are the progress notifications in full, asked the questions
	// the server asked.
	told  []*sdk.ProgressNotificationParams
	asked []string
}

func newRig(t testing.TB, o rigOpts) *rig {
	dir := t.TempDir()
	r := &rig{}
	sbc := sandbox.Config{Speed: 1e5, Seed: 3, StatePath: filepath.Join(dir, "sandbox.json")}
	if o.clock != nil {
		sbc.Clock = o.clock
	}
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: studio.MaxSandboxSpeed, RequestBudget: 20,
		Theme: "dark", AgentCreditCap: o.cap, DownloadDir: filepath.Join(dir, "downloads"), Uploads: o.uploads}
	opts := studio.Options{Origin: record.OriginMCP, NoEvents: true, Watcher: fastWatcher, ChangeInterval: 20 * time.Millisecond, Sandbox: &sbc}
	opts.Clock = o.historyClock
	if o.productionWatcher {
		opts.Watcher, opts.ChangeInterval = track.WatcherOptions{}, 0
	}
	if o.counted {
		sb, err := sandbox.New(sbc)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/files/") {
				time.Sleep(o.slowFiles)
			}
			if req.Method == http.MethodPost {
				r.posts.Add(1)
				b, _ := io.ReadAll(req.Body)
				r.mu.Lock()
				r.lastBody = b
				r.mu.Unlock()
				req.Body = io.NopCloser(bytes.NewReader(b))
			}
			sb.ServeHTTP(w, req)
		}))
		t.Cleanup(func() { ts.Close(); sb.Close() })
		cfg.APIKey, cfg.BaseURL = "test-key", ts.URL
	}
	st, err := studio.Open(t.Context(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); st.Close() })
	if err := st.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r.st = st
	r.media = filepath.Join(dir, "media")
	if err := os.MkdirAll(r.media, 0o700); err != nil {
		t.Fatal(err)
	}
	so := o.server
	so.MediaRoots = append(so.MediaRoots, r.media)
	if so.DownloadWait == 0 {
		so.DownloadWait = 10 * time.Second
	}
	if so.Consent == (Consent{}) {
		so.Consent.Unasked = true // most tests send without a person to ask
	}
	if r.srv, err = New(st, so); err != nil {
		t.Fatal(err)
	}
	ct, stt := sdk.NewInMemoryTransports()
	if _, err := r.srv.SDK().Connect(ctx, stt, nil); err != nil {
		t.Fatal(err)
	}
	copts := &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			r.mu.Lock()
			r.progress = append(r.progress, req.Params.Message)
			r.told = append(r.told, req.Params)
			r.mu.Unlock()
		}}
	if o.elicit != nil {
		copts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			r.mu.Lock()
			r.asked = append(r.asked, req.Params.Message)
			r.mu.Unlock()
			return o.elicit(req.Params), nil
		}
	}
	if o.resourceUpdated != nil {
		copts.ResourceUpdatedHandler = func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			o.resourceUpdated(req.Params.URI)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	if r.cs, err = client.Connect(ctx, ct, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cs.Close() })
	return r
}

// call calls a tool and returns its result; a protocol error fails the test.
func (r *rig) call(t testing.TB, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured answer.
func (r *rig) ok(t testing.TB, name string, args any, out any) {
	t.Helper()
	res := r.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, b)
	}
}

// refused calls a tool that must answer a tool error (not a protocol
// error) and returns its text.
func (r *rig) refused(t testing.TB, name string, args any) string {
	t.Helper()
	res := r.call(t, name, args)
	if !res.IsError {
		t.Fatalf("%s: want a tool error, got %s", name, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (r *rig) tasks(t testing.TB) []record.Task {
	t.Helper()
	page, err := r.st.Record().Tasks(t.Context(), record.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Tasks
}
