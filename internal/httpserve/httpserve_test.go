package httpserve

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// serve serves a handler that answers 204 within limits on the loopback,
// and returns the server, a dialer of it, and a wait for the server to
// have seen a connection go idle after its request (a client reads the
// answer before the server marks the connection idle: under load, the
// second of two answered connections may be marked first).
func serve(t *testing.T, limits Limits) (srv *http.Server, dial func() net.Conn, idle func(net.Conn)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, l := server(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic("a handler's bug")
		}
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}), limits)
	var (
		mu    sync.Mutex
		idles = map[string]chan struct{}{}
	)
	idled := func(addr string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if idles[addr] == nil {
			idles[addr] = make(chan struct{}, 100)
		}
		return idles[addr]
	}
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		l.state(c, s)
		if s == http.StateIdle {
			idled(c.RemoteAddr().String()) <- struct{}{}
		}
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	dial = func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	idle = func(c net.Conn) {
		t.Helper()
		select {
		case <-idled(c.LocalAddr().String()):
		case <-time.After(10 * time.Second):
			t.Fatal("the server never saw the connection idle")
		}
	}
	return srv, dial, idle
}

// answered sends one request on c and reports whether it was answered,
// reading the whole answer (204: headers only) so the next can follow.
func answered(c net.Conn) bool {
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	return strings.HasPrefix(readHead(c), "HTTP/1.1 204")
}

// readHead reads an answer's status line and headers ("" when none comes
// within 5 s).
func readHead(c net.Conn) string {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	var got []byte
	one := make([]byte, 1)
	for !strings.HasSuffix(string(got), "\r\n\r\n") {
		if _, err := c.Read(one); err != nil {
			return ""
		}
		got = append(got, one[0])
	}
	return string(got)
}

// closed reports whether the server closes c (a read ends) within d.
func closed(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.ReadAll(c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// Zero limits take the defaults: 10 s for a request's headers, 30 s of
// idle keep-alive, no bound on a request or an answer (an agent's stream).
func TestZeroLimitsTakeTheDefaults(t *testing.T) {
	srv, _, _ := serve(t, Limits{})
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 30*time.Second ||
		srv.ReadTimeout != 0 || srv.WriteTimeout != 0 || srv.MaxHeaderBytes != 64<<10 {
		t.Errorf("header %v, idle %v, read %v, write %v, header bytes %d", srv.ReadHeaderTimeout, srv.IdleTimeout,
			srv.ReadTimeout, srv.WriteTimeout, srv.MaxHeaderBytes)
	}
}

// A client that never sends its headers, and a keep-alive one that stays
// idle after its request, are closed at their bounds.
func TestSilentAndIdleConnectionsAreClosed(t *testing.T) {
	_, dial, _ := serve(t, Limits{HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	silent, idle := dial(), dial()
	if !answered(idle) {
		t.Fatal("no answer")
	}
	if !closed(silent, 20*time.Second) {
		t.Error("a connection that sends nothing is kept")
	}
	if !closed(idle, 20*time.Second) {
		t.Error("an idle keep-alive connection is kept")
	}
}

// Past the cap the connection that has waited longest without a request
// makes room, so idle connections cannot shut out a client that asks; a
// connection closed gives its slot back; when every open one is in a
// request, a new one is closed at once.
func TestPastTheCapTheLongestIdleMakesRoom(t *testing.T) {
	_, dial, idle := serve(t, Limits{MaxConns: 2})
	first, second := dial(), dial()
	if !answered(first) {
		t.Fatal("no answer within the cap")
	}
	idle(first)
	if !answered(second) {
		t.Fatal("no answer within the cap")
	}
	idle(second)
	third := dial()
	if !answered(third) {
		t.Fatal("a client that asks was shut out by idle connections")
	}
	if !closed(first, 5*time.Second) {
		t.Error("the longest idle connection was kept past the cap")
	}
	if !answered(second) {
		t.Error("a connection that waited less was closed in its place")
	}
	// Both open connections in a request, its body still to come (the
	// handler asked for it: 100 Continue): no room.
	for _, c := range []net.Conn{second, third} {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n")
		if got := readHead(c); !strings.HasPrefix(got, "HTTP/1.1 100") {
			t.Fatalf("no 100 Continue: %q", got)
		}
	}
	if !closed(dial(), 5*time.Second) {
		t.Error("a connection past the cap was kept while every one was in a request")
	}
	// One hangs up: its slot is free for the next client, as soon as the
	// server has seen it go.
	third.Close()
	for deadline := time.Now().Add(10 * time.Second); !answered(dial()); {
		if time.Now().After(deadline) {
			t.Fatal("a slot given back was not taken by the next client")
		}
	}
}

// The default cap is 64 connections: the 65th makes room by closing the
// longest idle one.
func TestTheDefaultCapIs64(t *testing.T) {
	_, dial, idle := serve(t, Limits{})
	conns := make([]net.Conn, 64)
	for i := range conns {
		conns[i] = dial()
		if !answered(conns[i]) {
			t.Fatalf("connection %d not answered", i+1)
		}
		idle(conns[i])
	}
	if closed(conns[0], 300*time.Millisecond) {
		t.Fatal("a connection within the cap was closed")
	}
	if !answered(dial()) {
		t.Fatal("the 65th connection was not answered")
	}
	if !closed(conns[0], 5*time.Second) {
		t.Error("64 connections kept past the default cap")
	}
}

// The server's own errors go to the log it is given, with its prefix,
// never to the terminal (Go's default is the standard logger, on stderr).
func TestServerErrorsGoToItsLog(t *testing.T) {
	var log lockedBuffer
	_, dial, _ := serve(t, Limits{ErrorLog: &log, Prefix: "agents: "})
	// A handler's panic: the server recovers and logs it.
	io.WriteString(dial(), "GET /panic HTTP/1.1\r\nHost: x\r\n\r\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasPrefix(log.String(), "agents: ") {
		if time.Now().After(deadline) {
			t.Fatalf("the server's error was not logged with its prefix: %q", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
