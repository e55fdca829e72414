package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"clapper/api"
)

// outgoing is one claimed callback attempt, ready to send without the lock.
type outgoing struct {
	id    int64
	url   string
	token string
	body  []byte
}

// deliverDue advances the simulation and sends every callback that is due,
// in the order the events happened. Each attempt is counted (and the next
// one scheduled) before it is sent, so that a crash or a second process
// never sends more than three.
func (s *Server) deliverDue() {
	var batch []outgoing
	err := s.withState(func(st *state, now time.Time) error {
		kept := st.Deliveries[:0]
		for _, d := range st.Deliveries {
			u := st.byID[d.Unit]
			if u == nil {
				continue
			}
			kept = append(kept, d)
			if s.inflight[d.ID] || d.NextAt.After(now) {
				continue
			}
			d.Attempts++
			if d.Attempts <= len(callbackRetryAfter) {
				d.NextAt = now.Add(callbackRetryAfter[d.Attempts-1])
			}
			body, err := json.Marshal(result(st, u, signer{secret: st.Secret, origin: u.Origin, now: now}, d.State))
			if err != nil {
				return err
			}
			s.inflight[d.ID] = true
			batch = append(batch, outgoing{id: d.ID, url: u.CallbackURL, token: u.Token, body: body})
		}
		st.Deliveries = kept
		st.dirty = st.dirty || len(batch) > 0
		return nil
	})
	if err != nil {
		s.logf("sandbox: callbacks: %v", err)
	}
	// Each delivery goes out on its own: one slow receiver must not delay
	// the callbacks of every other task.
	var wg sync.WaitGroup
	for _, o := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.deliver(o)
		}()
	}
	wg.Wait()
}

// deliver sends one callback and settles its delivery record.
func (s *Server) deliver(o outgoing) {
	ok := s.send(o)
	settled := false
	err := s.withState(func(st *state, _ time.Time) error {
		kept := st.Deliveries[:0]
		for _, d := range st.Deliveries {
			if d.ID != o.id || (!ok && d.Attempts < d.Max) {
				kept = append(kept, d)
			}
		}
		st.Deliveries, st.dirty = kept, true
		delete(s.inflight, o.id)
		settled = true
		return nil
	})
	if err != nil {
		s.logf("sandbox: callbacks: %v", err)
	}
	if !settled {
		s.mu.Lock()
		delete(s.inflight, o.id)
		s.mu.Unlock()
	}
	s.idle.Broadcast()
}

// send posts one callback, signed with the token that created the task;
// any 2xx answer accepts it.
func (s *Server) send(o outgoing) bool {
	ctx, cancel := context.WithTimeout(s.ctx, callbackTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(o.body))
	if err != nil {
		s.logf("sandbox: callback to %s: %v", o.url, err)
		return false
	}
	if req.URL.Path == "" {
		// Sign the path the receiver will see: a bare host is sent as "/".
		req.URL.Path = "/"
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "clapper-sandbox")
	api.SignCallback(req, o.token, s.clock.Now())
	res, err := s.client.Do(req)
	if err != nil {
		s.logf("sandbox: callback to %s: %v", o.url, err)
		return false
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	if res.StatusCode/100 != 2 {
		s.logf("sandbox: callback to %s: HTTP %d", o.url, res.StatusCode)
		return false
	}
	return true
}

const callbackTimeout = 10 * time.Second
