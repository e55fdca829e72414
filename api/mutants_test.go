package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Tests for the mutants of the whole-package run of issue 35 that lived.

// A read that the service redirects on its own origin is followed for at
// most nine redirects, as Go's own client does: the tenth stops it.
func TestTheTenthRedirectStopsARead(t *testing.T) {
	var hops atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
		if k < int(hops.Load()) {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", k+1), http.StatusTemporaryRedirect)
			return
		}
		w.Write([]byte(`{"id":"1","state":"success","err_code":"","credits":1}`))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, "secret-key-123456", WithRetry(RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	hops.Store(9)
	if _, err := c.Get(context.Background(), "1"); err != nil {
		t.Errorf("nine redirects: %v", err)
	}
	hops.Store(10)
	if _, err := c.Get(context.Background(), "1"); err == nil || !strings.Contains(err.Error(), "10 redirects") {
		t.Errorf("ten redirects: %v, want them stopped", err)
	}
}

// A result without credits, or with null, says nothing of them (a credit
// count recorded before must stand); credits of 0 are a count.
func TestCreditsAbsentNullOrZero(t *testing.T) {
	for body, sent := range map[string]bool{
		`{"id":"1","state":"processing"}`:                false,
		`{"id":"1","state":"processing","credits":null}`: false,
		`{"id":"1","state":"success","credits":0}`:       true,
		`{"id":"1","state":"success","credits":"12"}`:    true,
	} {
		var r TaskResult
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if r.CreditsSent != sent {
			t.Errorf("%s: credits sent %v, want %v", body, r.CreditsSent, sent)
		}
	}
}

// A whole number is read exactly up to 2^53, the largest a JSON number
// keeps in every decoder; past it the count would be rounded, so it is
// refused.
func TestAWholeNumberUpTo2To53(t *testing.T) {
	var r TaskResult
	if err := json.Unmarshal([]byte(`{"id":"1","state":"success","credits":9007199254740992}`), &r); err != nil || r.Credits != 1<<53 {
		t.Errorf("credits 2^53: %d, %v", r.Credits, err)
	}
	if err := json.Unmarshal([]byte(`{"id":"1","state":"success","credits":18014398509481984}`), &r); err == nil {
		t.Errorf("credits 2^54 read as %d", r.Credits)
	}
}

// A job's input is a string in the spec and any JSON value in practice: a
// string is read as its text, anything else as its JSON, null as nothing.
func TestAJobInputOfAnyShape(t *testing.T) {
	for in, want := range map[string]string{
		`"a walk on the beach"`:   "a walk on the beach",
		`{"job_ids":["s1","s2"]}`: `{"job_ids":["s1","s2"]}`,
		`null`:                    "",
	} {
		var j OneClickJob
		body := `{"id":"j1","state":"success","input":` + in + `,"job_records":[{"type":"compose","index":2,"jobs":[{"id":"c1","state":"success","input":` + in + `}]}]}`
		if err := json.Unmarshal([]byte(body), &j); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(j.Input) != want || string(j.JobRecords[0].Jobs[0].Input) != want {
			t.Errorf("input %s read as %q and %q, want %q", in, j.Input, j.JobRecords[0].Jobs[0].Input, want)
		}
	}
}
