package track

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clapper/api"
)

func TestReceiverVerifiesAndAppliesOnce(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	rc := &Receiver{Token: "tok", Watcher: w, Clock: clk}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	post := func(body string, sign func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hook", strings.NewReader(body))
		if sign != nil {
			sign(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	good := func(r *http.Request) { api.SignCallback(r, "tok", clk.Now()) }
	success := `{"id":"` + ids[0] + `","state":"success","err_code":"","credits":10,"creations":[{"id":"c","url":"http://f.invalid/1.png"}]}`

	for name, sign := range map[string]func(*http.Request){
		"unsigned": nil,
		"forged":   func(r *http.Request) { api.SignCallback(r, "not-the-token", clk.Now()) },
		"stale":    func(r *http.Request) { api.SignCallback(r, "tok", clk.Now().Add(-time.Hour)) },
		"tampered": func(r *http.Request) { api.SignCallback(r, "tok", clk.Now()); r.Header.Set(api.HeaderNonce, "other") },
	} {
		if code := post(success, sign); code != http.StatusUnauthorized {
			t.Errorf("%s callback answered %d, want 401", name, code)
		}
	}
	if task, _ := store.TaskByID(context.Background(), ids[0]); task.State != api.StateCreated {
		t.Fatalf("a rejected callback changed the task: %s", task.State)
	}
	for i := 0; i < 3; i++ { // the service delivers success up to three times
		if code := post(success, good); code != http.StatusOK {
			t.Fatalf("delivery %d answered %d", i, code)
		}
	}
	ev := drain(w)
	if len(ev) != 1 || ev[0].To != api.StateSuccess {
		t.Errorf("events %+v, want one success", ev)
	}
	if task, _ := store.TaskByID(context.Background(), ids[0]); task.State != api.StateSuccess || len(task.Events) != 3 {
		t.Errorf("task %s with %d events", task.State, len(task.Events))
	}
	if w.Watching() != 0 {
		t.Error("a task finished by callback is still polled")
	}
	if code := post(`{"state":"success"}`, good); code != http.StatusBadRequest {
		t.Errorf("body without id answered %d", code)
	}
}

func TestListenCallbacksRefusesPublicAddress(t *testing.T) {
	if _, _, err := ListenCallbacks("0.0.0.0:0", &Receiver{}); err == nil {
		t.Error("listened on all interfaces")
	}
	srv, ln, err := ListenCallbacks("127.0.0.1:0", &Receiver{})
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	srv.Close()
}
