package studio_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// The embedded sandbox keeps its port across runs while it is free, so the
// URLs history holds from an earlier run still answer; when another holds
// it, a run takes any port and the remembered one stays.
func TestEmbeddedSandboxKeepsItsPort(t *testing.T) {
	isolated(t)
	cfg := resolved(t, studio.Config{})
	open := func() *studio.Studio {
		t.Helper()
		s, err := studio.Open(context.Background(), cfg, studio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	listening := func(port string) bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			return false
		}
		c.Close()
		return true
	}
	s := open()
	b, err := os.ReadFile(cfg.SandboxPortPath())
	if err != nil {
		t.Fatalf("the port was not remembered: %v", err)
	}
	port := strings.TrimSpace(string(b))
	if !listening(port) {
		t.Fatalf("nothing listens on the remembered port %s", port)
	}
	s.Close()

	s = open()
	if !listening(port) {
		t.Errorf("the second run does not serve on port %s", port)
	}
	s.Close()

	// Another program holds it now: the run starts elsewhere.
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("port %s was taken meanwhile: %v", port, err)
	}
	defer ln.Close()
	s = open()
	defer s.Close()
	if b, _ := os.ReadFile(cfg.SandboxPortPath()); strings.TrimSpace(string(b)) != port {
		t.Errorf("the remembered port changed to %q while %s was busy", b, port)
	}
}

// A preview whose URL is dead (the port of an earlier run's sandbox) is
// fetched after one re-read of the task signs a fresh URL.
func TestTaskPreviewRereadsForAFreshURL(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	ctx := context.Background()
	sub, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Minute)
	id := sub.Task.Identifier()
	dead := record.CreationsFrom([]api.Creation{{ID: "0", URL: "http://127.0.0.1:1/" + id + "/0.png"}}, clk.Now().Add(time.Hour))
	if _, err := s.Record().ApplyResult(ctx, id, record.Update{State: api.StateSuccess, Creations: dead}); err != nil {
		t.Fatal(err)
	}
	task, err := s.Record().Task(ctx, sub.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	path, err := s.TaskPreview(ctx, task, true)
	if err != nil {
		t.Fatalf("no preview: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("preview %s: %v", path, err)
	}
	if task, _ = s.Record().Task(ctx, sub.LocalID); strings.Contains(task.Creations[0].URL, "127.0.0.1:1/") {
		t.Errorf("history still holds the dead URL %s", task.Creations[0].URL)
	}
}
