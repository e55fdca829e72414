package track

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"clapper/api"
)

// Issue 11 item 3: the key a callback is signed with (the API key) never
// reaches history from a callback body in any JSON spelling: since issue 12
// nothing of a callback body is kept, only the service's answer to the read
// the callback triggers.
func TestCallbackEchoOfTheKeyIsNotStored(t *testing.T) {
	const key = `k"/+é`
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	srv := httptest.NewServer(&Receiver{Token: key, Watcher: w, Clock: clk})
	defer srv.Close()

	body := `{"id":"` + ids[0] + `","state":"success","err_code":"","credits":10,"payload":"k\"\/\u002b\u00e9",` +
		`"creations":[{"id":"c","url":"http://f.invalid/1.png"}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hook", strings.NewReader(body))
	api.SignCallback(req, key, clk.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("callback answered %d", resp.StatusCode)
	}
	svc.states[ids[0]] = []string{"success"}
	w.Step(context.Background())
	task, err := store.TaskByID(context.Background(), ids[0])
	if err != nil || task.State != api.StateSuccess {
		t.Fatalf("task %+v, %v", task, err)
	}
	for _, ev := range task.Events {
		var v struct{ Payload *string }
		if json.Unmarshal(ev.Raw, &v) == nil && v.Payload != nil {
			t.Errorf("history keeps the callback's payload as %q", *v.Payload)
		}
	}
}
