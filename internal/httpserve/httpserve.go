// Package httpserve serves HTTP to clients that may be hostile before they
// authenticate: the callback receiver's tunnel and the agent server's port.
// Anyone who reaches the port can connect, so what a client can hold is
// bounded: the time to send its headers and body, the time a keep-alive
// connection may idle, and the number of connections open at once, past
// which room is made by closing the connection that has waited longest
// without a request in progress (or, when every one is busy, the new one):
// a thousand idle connections cannot shut out a client that asks, and
// cannot use up the process's file descriptors, which downloads and the
// history need.
package httpserve

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what clients can hold of a server. Zero values take the
// defaults.
type Limits struct {
	// HeaderTimeout bounds reading a request's headers (default 10 s);
	// ReadTimeout the whole request, body included, and WriteTimeout one
	// answer (0: no bound, for a request that streams, as an agent's
	// stream of server-sent events does for as long as it listens);
	// IdleTimeout how long a keep-alive connection may wait for the next
	// request (default 30 s).
	HeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns is how many connections are served at once (default 64).
	MaxConns int
	// ErrorLog receives the server's own errors (accept failures, bad
	// handshakes), each line with Prefix; nil discards them. Never the
	// terminal: the TUI owns it, and stdio belongs to an agent's protocol.
	ErrorLog io.Writer
	Prefix   string
}

// Serve serves h on ln within limits until the returned server is closed
// (or shut down).
func Serve(ln net.Listener, h http.Handler, limits Limits) *http.Server {
	srv, l := server(ln, h, limits)
	go srv.Serve(l)
	return srv
}

// server is Serve's server and listener, not yet serving.
func server(ln net.Listener, h http.Handler, limits Limits) (*http.Server, *cappedListener) {
	if limits.HeaderTimeout <= 0 {
		limits.HeaderTimeout = 10 * time.Second
	}
	if limits.IdleTimeout <= 0 {
		limits.IdleTimeout = 30 * time.Second
	}
	if limits.MaxConns <= 0 {
		limits.MaxConns = 64
	}
	if limits.ErrorLog == nil {
		limits.ErrorLog = io.Discard
	}
	l := &cappedListener{Listener: ln, max: limits.MaxConns, conns: map[net.Conn]*tracked{}}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limits.HeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(limits.ErrorLog, limits.Prefix, log.LstdFlags),
		ConnState:         l.state,
	}
	return srv, l
}

// cappedListener keeps at most max connections open. A new one past that
// closes the open connection that has waited longest with no request in
// progress (one that never asked, or a keep-alive one between requests);
// when every one is in a request, the new one is closed at once. Closing
// at once frees descriptors, where waiting to accept (as
// netutil.LimitListener does) would leave them queued in the kernel.
type cappedListener struct {
	net.Listener
	max   int
	mu    sync.Mutex
	conns map[net.Conn]*tracked
}

// tracked is what the listener knows of an open connection: whether a
// request is in progress on it, and since when it has waited without one.
type tracked struct {
	busy  bool
	since time.Time
}

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return &slotConn{Conn: c, free: func() { l.forget(c) }}, nil
		}
		c.Close()
	}
}

// admit makes room for c, closing the longest-waiting connection with no
// request in progress when all slots are taken; false when every one is
// busy.
func (l *cappedListener) admit(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		var oldest net.Conn
		for conn, t := range l.conns {
			if !t.busy && (oldest == nil || t.since.Before(l.conns[oldest].since)) {
				oldest = conn
			}
		}
		if oldest == nil {
			return false
		}
		delete(l.conns, oldest)
		oldest.Close()
	}
	l.conns[c] = &tracked{since: time.Now()}
	return true
}

func (l *cappedListener) forget(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
}

// state follows the server's view of each connection.
func (l *cappedListener) state(c net.Conn, s http.ConnState) {
	if sc, ok := c.(*slotConn); ok {
		c = sc.Conn
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.conns[c]
	if !ok {
		return
	}
	switch s {
	case http.StateActive, http.StateHijacked:
		t.busy = true
	case http.StateIdle:
		t.busy, t.since = false, time.Now()
	}
}

// slotConn gives its slot back once, when closed.
type slotConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
