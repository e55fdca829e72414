package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/studio"
)

// readCounter is a service whose tasks never finish; it counts the reads.
type readCounter struct {
	mu    sync.Mutex
	made  int
	reads int
}

func (c *readCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case r.Method == http.MethodPost:
		c.made++
		fmt.Fprintf(w, `{"task_id":"b%d","state":"created"}`, c.made)
	case strings.HasSuffix(r.URL.Path, "/creations"):
		c.reads++
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/ent/v2/tasks/"), "/creations")
		fmt.Fprintf(w, `{"id":%q,"state":"processing"}`, id)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":404,"reason":"NotFound","message":"no such path"}`)
	}
}

func (c *readCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// readsIn runs a command for window (then Ctrl-C) with the watcher's fast
// test schedule but no budget of its own, so only the configured budget
// paces it, and returns how many reads reached the service meanwhile.
func readsIn(t *testing.T, svc *readCounter, window time.Duration, args ...string) int {
	t.Helper()
	before := svc.count()
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	opts := fastWatcher
	opts.RequestsPerSecond, opts.Burst = 0, 0
	var out, errb bytes.Buffer
	root := NewRoot(&App{Out: &out, Err: &errb, In: strings.NewReader(""), watcher: opts})
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err == nil || ExitCode(err) != exitInterrupted {
		t.Fatalf("%s: want it stopped by the window, got %v\n%s%s", args[0], err, out.String(), errb.String())
	}
	return svc.count() - before
}

// Issue 16.1: watch and create --wait read at the pace the settings file's
// request_budget sets, as the TUI does, counted at the service. Their test
// schedule asks for a read of every task each millisecond, so the budget
// alone decides.
func TestCommandsHonourTheSettingsFileBudget(t *testing.T) {
	conf := t.TempDir()
	t.Setenv(studio.EnvConfigDir, conf)
	budget := func(rps float64) {
		b := fmt.Appendf(nil, `{"request_budget": %g}`, rps)
		if err := os.WriteFile(filepath.Join(conf, "settings.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	svc := &readCounter{}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	data := t.TempDir()
	common := []string{"--base-url", srv.URL, "--api-key", "k", "--data-dir", data}
	for i := 0; i < 3; i++ {
		if r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"}, common...)...); r.code != 0 {
			t.Fatal(r.err)
		}
	}
	const window = 1500 * time.Millisecond
	// At 1 read a second, with a burst of two seconds' worth: at most
	// 2 + 1.5 reads in the window.
	budget(1)
	if n := readsIn(t, svc, window, append([]string{"watch"}, common...)...); n < 1 || n > 4 {
		t.Errorf("watch with request_budget 1 read %d times in %s, want 1 to 4", n, window)
	}
	if n := readsIn(t, svc, window, append([]string{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--wait"}, common...)...); n < 1 || n > 4 {
		t.Errorf("create --wait with request_budget 1 read %d times in %s, want 1 to 4", n, window)
	}
	// The window can tell: at 4 a second the same watch reads far more
	// (its burst of 8 alone). A longer window leaves room for a slow start
	// in a -race run on a loaded machine; more time only adds reads.
	budget(4)
	const wide = 2 * window
	if n := readsIn(t, svc, wide, append([]string{"watch"}, common...)...); n < 9 {
		t.Errorf("watch with request_budget 4 read only %d times in %s: the window does not measure the budget", n, wide)
	}
}
