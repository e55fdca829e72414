package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// A task id is 1 to 128 letters, digits, '-', '_' and '.': each end of each
// range is taken, the character just outside it refused.
func TestCheckIDAtEachBound(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{"0", true}, {"9", true}, {"a", true}, {"z", true}, {"A", true}, {"Z", true},
		{"-", true}, {"_", true}, {".", false}, {"..", false}, {"...", false}, {".a", true}, {"a..b", true}, {"ab-c_d.9", true},
		{"/", false}, {":", false}, {"`", false}, {"{", false}, {"@", false}, {"[", false},
		{" ", false}, {"a\x1bb", false}, {"é", false}, {"", false},
		{strings.Repeat("x", MaxIDLength), true}, {strings.Repeat("x", MaxIDLength+1), false},
	} {
		if err := CheckID(c.id); (err == nil) != c.ok {
			t.Errorf("CheckID(%q): %v, want accepted %v", c.id, err, c.ok)
		}
	}
}

// A multi-scene job is refused when its id or any started scene's id is
// one clapper cannot use; a scene not started yet (no id) is fine.
func TestJobIDsAreChecked(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"id":"j1","job_records":[{"jobs":[{"id":"s1"},{"id":""}]}]}`, true},
		{`{"id":"j/1","job_records":[]}`, false},
		{`{"id":"j1","job_records":[{"jobs":[{"id":"s 1"}]}]}`, false},
	} {
		tr := &headerTransport{body: c.body}
		cl, _ := NewClient("https://svc.example", "key-12345678", WithHTTPClient(&http.Client{Transport: tr}))
		if _, err := cl.GetOneClick(context.Background(), "j1"); (err == nil) != c.ok {
			t.Errorf("%s: %v, want accepted %v", c.body, err, c.ok)
		}
	}
}
