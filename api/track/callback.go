package track

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"clapper/api"
)

// Receiver answers the service's status callbacks. It verifies the HMAC
// signature made with the API token and the freshness of its Date, answers
// 401 to anything unsigned or forged, and hands each new result to the
// watcher. Redelivered duplicates are acknowledged and recorded once.
type Receiver struct {
	Token   string
	Watcher *Watcher
	Clock   Clock
	// MaxSkew bounds how far a callback's Date may be from now (default 5 min).
	MaxSkew time.Duration

	mu   sync.Mutex
	seen map[string]bool // task id + state already applied
}

const maxCallbackBody = 4 << 20

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "callbacks are POSTed", http.StatusMethodNotAllowed)
		return
	}
	now := time.Now()
	if rc.Clock != nil {
		now = rc.Clock.Now()
	}
	skew := rc.MaxSkew
	if skew == 0 {
		skew = 5 * time.Minute
	}
	if err := api.VerifyCallback(r, rc.Token, now, skew); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallbackBody))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	// The token is the API key: an echo of it must not reach history.
	body = api.Scrub(body, rc.Token)
	var res api.TaskResult
	if err := json.Unmarshal(body, &res); err != nil || res.ID == "" || res.State == "" {
		http.Error(w, "body is not a task result", http.StatusBadRequest)
		return
	}
	res.Raw = body
	k := res.ID + "\x00" + res.State
	rc.mu.Lock()
	dup := rc.seen[k]
	if rc.seen == nil {
		rc.seen = map[string]bool{}
	}
	rc.seen[k] = true // claimed now, so a redelivery racing this one is a duplicate
	rc.mu.Unlock()
	if dup {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := rc.Watcher.Apply(r.Context(), &res); err != nil {
		rc.mu.Lock()
		delete(rc.seen, k)
		rc.mu.Unlock()
		// Not recorded: a 5xx makes the service deliver it again.
		http.Error(w, "could not record the result", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// ListenCallbacks serves the receiver on a loopback address only: the
// service reaches it through a public URL the user configures (a tunnel or
// a reverse proxy), never through an open port.
func ListenCallbacks(addr string, rc *Receiver) (*http.Server, net.Listener, error) {
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
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, ln, nil
}
