package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"clapper/api"
)

// receiver records callbacks and answers them with status.
type receiver struct {
	t      *testing.T
	clock  *FakeClock
	mu     sync.Mutex
	status int
	got    []api.TaskResult
	srv    *httptest.Server
}

func newReceiver(t *testing.T, clock *FakeClock, status int) *receiver {
	rc := &receiver{t: t, clock: clock, status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := api.VerifyCallback(r, testToken, clock.Now(), 5*time.Minute); err != nil {
			t.Errorf("callback signature: %v", err)
		}
		b, _ := io.ReadAll(r.Body)
		var res api.TaskResult
		if err := json.Unmarshal(b, &res); err != nil {
			t.Errorf("callback body %s: %v", b, err)
		}
		rc.mu.Lock()
		rc.got = append(rc.got, res)
		status := rc.status
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) states() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, r := range rc.got {
		out = append(out, r.State)
	}
	return out
}

func TestCallbacksReportProcessingAndOutcomeSigned(t *testing.T) {
	h := newHarness(t, Config{})
	rc := newReceiver(t, h.clock, http.StatusOK)
	id := h.createID(api.OpText2Video, sample(api.OpText2Video, map[string]any{"callback_url": rc.srv.URL + "/cb?x=1"}))
	h.until(id, api.StateSuccess, time.Hour)
	h.advance(time.Minute)
	if got := rc.states(); !slices.Equal(got, []string{api.StateProcessing, api.StateSuccess}) {
		t.Fatalf("callbacks %v, want processing then success", got)
	}
	last := rc.got[1]
	if last.ID != id || len(last.Creations) != 1 || last.Creations[0].URL == "" || last.Credits <= 0 {
		t.Errorf("success callback = %+v", last)
	}
	if code, _ := h.fetch(last.Creations[0].URL); code != http.StatusOK {
		t.Errorf("callback result URL: HTTP %d", code)
	}
}

func TestFailedCallback(t *testing.T) {
	h := newHarness(t, Config{FailRate: 1})
	rc := newReceiver(t, h.clock, http.StatusOK)
	id := h.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": rc.srv.URL}))
	h.until(id, api.StateFailed, time.Hour)
	h.advance(time.Second)
	got := rc.states()
	if !slices.Equal(got, []string{api.StateProcessing, api.StateFailed}) || rc.got[1].ErrCode == "" {
		t.Errorf("callbacks %v (%+v), want processing then failed with err_code", got, rc.got)
	}
}

func TestOutcomeCallbackIsDeliveredThreeTimesAtMost(t *testing.T) {
	h := newHarness(t, Config{})
	rc := newReceiver(t, h.clock, http.StatusInternalServerError)
	id := h.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": rc.srv.URL}))
	h.until(id, api.StateSuccess, time.Hour)
	h.advance(0)
	want := []string{api.StateProcessing, api.StateSuccess} // processing is sent once only
	if got := rc.states(); !slices.Equal(got, want) {
		t.Fatalf("callbacks %v, want %v", got, want)
	}
	h.advance(callbackRetryAfter[0])
	want = append(want, api.StateSuccess)
	if got := rc.states(); !slices.Equal(got, want) {
		t.Fatalf("after the first retry interval: %v", got)
	}
	h.advance(callbackRetryAfter[1])
	want = append(want, api.StateSuccess)
	if got := rc.states(); !slices.Equal(got, want) {
		t.Fatalf("after the second retry interval: %v", got)
	}
	h.advance(time.Hour)
	if got := rc.states(); !slices.Equal(got, want) {
		t.Errorf("more than three deliveries: %v", got)
	}
}

func TestAcceptedCallbackIsNotRepeated(t *testing.T) {
	h := newHarness(t, Config{})
	rc := newReceiver(t, h.clock, http.StatusNoContent)
	id := h.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": rc.srv.URL}))
	h.until(id, api.StateSuccess, time.Hour)
	h.advance(time.Hour)
	if got := rc.states(); len(got) != 2 {
		t.Errorf("callbacks %v, want one per state", got)
	}
}

type countingTransport struct {
	mu    sync.Mutex
	calls int
}

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return nil, http.ErrHandlerTimeout
}

func TestOnlyLoopbackTargetsAreCalledBack(t *testing.T) {
	tr := &countingTransport{}
	var logged []string
	var mu sync.Mutex
	h := newHarness(t, Config{CallbackClient: &http.Client{Transport: tr}, Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, f)
		mu.Unlock()
	}})
	id := h.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": "https://example.com/cb"}))
	h.until(id, api.StateSuccess, time.Hour)
	h.advance(time.Hour)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.calls != 0 {
		t.Errorf("%d calls to a remote callback target", tr.calls)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) == 0 {
		t.Error("the skipped callback was not logged")
	}
	if r := h.get(id); r.CallbackURL != "https://example.com/cb" {
		t.Errorf("result callback_url = %q, want echoed", r.CallbackURL)
	}
}

// A receiver that hangs delays no other task's callbacks.
func TestSlowReceiverDelaysNoOtherCallback(t *testing.T) {
	h := newHarness(t, Config{})
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer slow.Close()
	fast := newReceiver(t, h.clock, http.StatusOK)
	h.createID(api.OpText2Video, sample(api.OpText2Video, map[string]any{"callback_url": slow.URL + "/cb"}))
	h.createID(api.OpText2Video, sample(api.OpText2Video, map[string]any{"callback_url": fast.srv.URL + "/cb"}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.advance(20 * time.Second) // both start processing; Advance waits for its callbacks
	}()
	deadline := time.After(30 * time.Second) // a hang guard
	for len(fast.states()) == 0 {
		select {
		case <-deadline:
			close(release)
			t.Fatal("the fast receiver got nothing while the slow one hung")
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(release)
	<-done
}
