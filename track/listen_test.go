package track

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// closedWithin reports whether the server closes conn (a read ends) within d.
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.ReadAll(conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// listen serves a bare receiver within limits on the loopback and returns
// a dialer of it.
func listen(t *testing.T, limits CallbackLimits) func() net.Conn {
	t.Helper()
	srv, ln, err := ListenCallbacks("127.0.0.1:0", &Receiver{}, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// askOnce sends one request on c and reports whether it was answered.
func askOnce(c net.Conn) bool {
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	buf := make([]byte, 12)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.ReadFull(c, buf)
	c.SetReadDeadline(time.Time{})
	return err == nil && strings.HasPrefix(string(buf), "HTTP/1.1 405")
}

// Issue 19.12: a connection that sends nothing, or stays idle after a
// request, is closed.
func TestCallbackReceiverClosesIdleConnections(t *testing.T) {
	dial := listen(t, CallbackLimits{ReadTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	silent, keepAlive := dial(), dial()
	if !askOnce(keepAlive) {
		t.Fatal("no answer")
	}
	if !closedWithin(silent, 30*time.Second) {
		t.Error("a connection that sends nothing is kept")
	}
	if !closedWithin(keepAlive, 30*time.Second) {
		t.Error("an idle keep-alive connection is kept")
	}
}

// Issue 19.12 and trust round two: past the cap, room is made by closing
// the connection that has waited longest without a request (a keep-alive
// one between requests, or one that never asked), so idle connections
// cannot shut out a client that asks; when every open connection is in a
// request, a new one is closed at once.
func TestCallbackReceiverMakesRoomPastTheCap(t *testing.T) {
	dial := listen(t, CallbackLimits{ReadTimeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 2})
	first, second := dial(), dial()
	if !askOnce(first) || !askOnce(second) {
		t.Fatal("no answer within the cap")
	}
	third := dial()
	if !askOnce(third) {
		t.Fatal("a client that asks was shut out by idle connections")
	}
	if !closedWithin(first, 5*time.Second) {
		t.Error("the longest idle connection was kept past the cap")
	}
	// Both open connections in a request (its body still to come): no room.
	for _, c := range []net.Conn{second, third} {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
	}
	time.Sleep(500 * time.Millisecond) // the server reads the headers
	if !closedWithin(dial(), 5*time.Second) {
		t.Error("a connection past the cap was kept while every one was in a request")
	}
}

// Issue 19.12: the server's own errors go to the log it is given, never to
// the terminal (Go's default is the standard logger, on stderr).
func TestCallbackServerErrorsGoToItsLog(t *testing.T) {
	var logged syncBuffer
	ln := &flakyListener{fails: 1}
	srv := ServeCallbacks(ln, &Receiver{}, CallbackLimits{ErrorLog: &logged})
	defer srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logged.String(), "flaky accept") {
		if time.Now().After(deadline) {
			t.Fatalf("accept error not logged; log holds %q", logged.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// flakyListener fails its first accepts with a temporary error, then
// blocks until closed.
type flakyListener struct {
	mu     sync.Mutex
	fails  int
	closed chan struct{}
	once   sync.Once
}

type temporary struct{}

func (temporary) Error() string   { return "flaky accept" }
func (temporary) Timeout() bool   { return false }
func (temporary) Temporary() bool { return true }

func (l *flakyListener) init() { l.once.Do(func() { l.closed = make(chan struct{}) }) }

func (l *flakyListener) Accept() (net.Conn, error) {
	l.init()
	l.mu.Lock()
	if l.fails > 0 {
		l.fails--
		l.mu.Unlock()
		return nil, temporary{}
	}
	l.mu.Unlock()
	<-l.closed
	return nil, net.ErrClosed
}

func (l *flakyListener) Close() error {
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *flakyListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
