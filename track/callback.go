package track

import (
	"container/heap"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"clapper/api"
	"clapper/internal/httpserve"
)

// Receiver answers the service's status callbacks. A callback is a signal,
// never the truth: the service's signature covers the method, path, query,
// Date and nonce but not the body, so whoever has seen one callback's headers
// could send them again with a body of their choosing. A callback therefore
// only wakes the watcher, which reads that task from the service at once
// (within the request budget) and records the service's answer; nothing of
// the body is stored, downloaded or shown.
//
// Answers: 401 to anything unsigned, forged, outside the Date window or whose
// nonce was already seen (a replay); 200 to every other callback with a task
// id, whether it woke a followed task or names one this client does not
// follow (acknowledged and ignored, without a read); 400 to a body with no
// task id; 503 while the nonce cache is full of unexpired nonces, which only
// the service's own signed callbacks can fill.
type Receiver struct {
	Token   string
	Watcher *Watcher
	Clock   Clock
	// MaxSkew bounds how far a callback's Date may be from now (default 5 min).
	MaxSkew time.Duration
	// MaxNonces bounds the replay cache (default 10,000 nonces).
	MaxNonces int

	mu     sync.Mutex
	nonces nonceCache
}

const (
	maxCallbackBody  = 4 << 20
	defaultMaxNonces = 10000
)

// errCacheFull is a fresh, signed callback that no room is left to remember.
var errCacheFull = errors.New("too many callbacks at once")

// now is the receiver's clock: the wall clock unless a test fixed one.
func (rc *Receiver) now() time.Time {
	if rc.Clock != nil {
		return rc.Clock.Now()
	}
	return time.Now()
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "callbacks are POSTed", http.StatusMethodNotAllowed)
		return
	}
	now := rc.now()
	skew := rc.MaxSkew
	if skew == 0 {
		skew = 5 * time.Minute
	}
	if err := api.VerifyCallback(r, rc.Token, now, skew); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	// The signature holds: the Date parses and lies within skew of now, so
	// the nonce can be replayed until Date + skew and no longer.
	date, _ := http.ParseTime(r.Header.Get("Date"))
	switch err := rc.claimNonce(r.Header.Get(api.HeaderNonce), date.Add(skew), now); {
	case errors.Is(err, errCacheFull):
		w.Header().Set("Retry-After", "5")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var probe struct {
		ID string `json:"id"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallbackBody))
	if err != nil || json.Unmarshal(body, &probe) != nil || probe.ID == "" {
		http.Error(w, "body is not a task result", http.StatusBadRequest)
		return
	}
	// Only the id is read, and only to choose which task to read now.
	rc.Watcher.Wake(probe.ID)
	w.WriteHeader(http.StatusOK)
}

// claimNonce remembers a nonce until it expires, or refuses one already seen.
func (rc *Receiver) claimNonce(nonce string, expires, now time.Time) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.nonces.expire(now)
	if rc.nonces.seen(nonce) {
		return errors.New("callback replayed: its nonce was already used")
	}
	limit := rc.MaxNonces
	if limit <= 0 {
		limit = defaultMaxNonces
	}
	if rc.nonces.Len() >= limit {
		return errCacheFull
	}
	heap.Push(&rc.nonces, nonceEntry{nonce, expires})
	return nil
}

// nonceCache holds each nonce until its callback could no longer pass the
// Date check, soonest expiry first, so the cache is bounded in time as well
// as in size.
type nonceCache struct {
	byNonce map[string]bool
	order   []nonceEntry // a min-heap on expires
}

type nonceEntry struct {
	nonce   string
	expires time.Time
}

func (c *nonceCache) seen(nonce string) bool { return c.byNonce[nonce] }

func (c *nonceCache) expire(now time.Time) {
	for len(c.order) > 0 && !c.order[0].expires.After(now) {
		heap.Pop(c)
	}
}

func (c *nonceCache) Len() int           { return len(c.order) }
func (c *nonceCache) Less(i, j int) bool { return c.order[i].expires.Before(c.order[j].expires) }
func (c *nonceCache) Swap(i, j int)      { c.order[i], c.order[j] = c.order[j], c.order[i] }
func (c *nonceCache) Push(x any) {
	e := x.(nonceEntry)
	if c.byNonce == nil {
		c.byNonce = map[string]bool{}
	}
	c.byNonce[e.nonce] = true
	c.order = append(c.order, e)
}
func (c *nonceCache) Pop() any {
	e := c.order[len(c.order)-1]
	c.order = c.order[:len(c.order)-1]
	delete(c.byNonce, e.nonce)
	return e
}

// ListenCallbacks serves the receiver on a loopback address only: the
// service reaches it through a public URL the user configures (a tunnel or
// a reverse proxy), never through an open port.
func ListenCallbacks(addr string, rc *Receiver, limits CallbackLimits) (*http.Server, net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, nil, errors.New("callback listener: " + addr + " is not a loopback address")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	return ServeCallbacks(ln, rc, limits), ln, nil
}

// CallbackLimits bound what unauthenticated clients can hold of the
// receiver: anyone who reaches the tunnel can connect before a signature
// is checked (httpserve.Limits: 64 connections, 30 s idle by default).
// ReadTimeout bounds reading a request and writing its answer (10 s when
// 0): a callback is small and answered at once.
type CallbackLimits = httpserve.Limits

// ServeCallbacks serves the receiver on ln within limits until the
// returned server is closed.
func ServeCallbacks(ln net.Listener, rc *Receiver, limits CallbackLimits) *http.Server {
	if limits.ReadTimeout <= 0 {
		limits.ReadTimeout = 10 * time.Second
	}
	limits.HeaderTimeout, limits.WriteTimeout = limits.ReadTimeout, limits.ReadTimeout
	limits.Prefix = "callbacks: "
	return httpserve.Serve(ln, rc, limits)
}
