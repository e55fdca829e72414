package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/studio"
)

func TestHTTPIsServedOnTheLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.10:8765", ":8765", "example.com:80", "nonsense"} {
		ln, err := listenLoopback(addr)
		if err == nil {
			ln.Close()
			t.Errorf("%s: served; want refused", addr)
			continue
		}
		if !studio.IsUsage(err) || !strings.Contains(err.Error(), "--http") {
			t.Errorf("%s: %v", addr, err)
		}
	}
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPNeedsTheBearerToken(t *testing.T) {
	r := newRig(t, rigOpts{})
	ts := httptest.NewServer(r.srv.HTTPHandler("s3cret"))
	defer ts.Close()
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Bearer s3cret2"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, res.StatusCode)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 31 {
		t.Fatalf("tools over HTTP: %v", err)
	}
}

// A page elsewhere cannot make a browser here call the server: a Host that
// is not this machine (DNS rebinding) or a foreign Origin is refused, even
// with the token; a page from localhost, and a client with no Origin, are
// served.
func TestHTTPRefusesForeignHostsAndOrigins(t *testing.T) {
	r := newRig(t, rigOpts{})
	ts := httptest.NewServer(r.srv.HTTPHandler("s3cret"))
	defer ts.Close()
	ask := func(host, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer s3cret")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct{ host, origin string }{
		{"evil.example:80", ""},
		{"", "https://evil.example"},
		{"", "null"},
		{"localhost.evil.example", ""},
	} {
		if got := ask(c.host, c.origin); got != http.StatusForbidden {
			t.Errorf("Host %q Origin %q: %d, want 403", c.host, c.origin, got)
		}
	}
	for _, c := range []struct{ host, origin string }{
		{"", ""},
		{"localhost:8765", "http://localhost:3000"},
		{"[::1]:8765", "http://127.0.0.1:6274"},
	} {
		if got := ask(c.host, c.origin); got != http.StatusOK {
			t.Errorf("Host %q Origin %q: %d, want 200", c.host, c.origin, got)
		}
	}
}

// A thousand connections that never ask (or stopped asking) do not keep
// an agent out: its client connects, initializes and lists the tools, and
// the server holds no more than its cap of connections.
func TestHTTPServesAnAgentBesideAThousandIdleConnections(t *testing.T) {
	r := newRig(t, rigOpts{})
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var logged strings.Builder
	go func() { done <- r.srv.serveHTTP(ctx, ln, "s3cret", &logWriter{b: &logged}) }()
	defer func() { cancel(); <-done }()
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 1000 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("after %d idle connections: %v", len(idle), err)
		}
		idle = append(idle, c)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("an agent beside a thousand idle connections: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("tools: %v", err)
	}
	open := 0
	for _, c := range idle {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
			open++ // still held by the server
		}
	}
	if open > 64 {
		t.Errorf("%d idle connections held, cap 64", open)
	}
}

type logWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
