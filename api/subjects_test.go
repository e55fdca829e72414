package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// subjectServer answers subject calls from a script (status and body per
// call, the last repeating) and records each request as "METHOD path?query body".
type subjectServer struct {
	mu       sync.Mutex
	answers  []string // "503" or a 200 body
	requests []string
}

func (s *subjectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI()+" "+string(b))
	answer := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	if answer == "503" {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"code":503,"reason":"SystemThrottling","message":"busy"}`)
		return
	}
	io.WriteString(w, answer)
}

func subjectClient(t *testing.T, s *subjectServer) *Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, "key-12345678", WithSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A subject is created by one POST, never sent twice (a 5xx may come after
// the service stored it); an update (a PUT, which repeats safely) is tried
// again after a 5xx. Each answers the stored subject.
func TestSubjectCallsAndTheirRetries(t *testing.T) {
	s := &subjectServer{answers: []string{"503", `{"id":"s1","name":"Mia"}`}}
	c := subjectClient(t, s)
	if _, err := c.CreateSubject(context.Background(), map[string]any{"name": "Mia"}); err == nil {
		t.Fatal("a 503 on creation answered a subject")
	}
	if len(s.requests) != 1 || s.requests[0] != `POST /ent/v2/subjects {"name":"Mia"}` {
		t.Errorf("creation sent %q, want one POST", s.requests)
	}
	s.answers, s.requests = []string{"503", `{"id":"s/1","name":"Mia B"}`}, nil
	got, err := c.UpdateSubject(context.Background(), "s/1", map[string]any{"name": "Mia B"})
	if err != nil || got.ID != "s/1" || got.Name != "Mia B" {
		t.Fatalf("update: %+v, %v", got, err)
	}
	if len(s.requests) != 2 || s.requests[1] != `PUT /ent/v2/subjects/s%2F1 {"name":"Mia B"}` {
		t.Errorf("update sent %q, want the PUT again after the 503", s.requests)
	}
}

// An answer without a subject id is an error that quotes it.
func TestSubjectAnswerWithoutAnID(t *testing.T) {
	for _, answer := range []string{`{"name":"Mia"}`, `not json`} {
		c := subjectClient(t, &subjectServer{answers: []string{answer}})
		if got, err := c.CreateSubject(context.Background(), map[string]any{"name": "Mia"}); err == nil || got != nil ||
			!strings.Contains(err.Error(), "without a subject id: "+answer) {
			t.Errorf("answer %s: %+v, %v", answer, got, err)
		}
	}
}

// ListSubjects asks for exactly what the query sets.
func TestListSubjectsQuery(t *testing.T) {
	page := `{"subjects":[{"id":"s1"}],"next_page_token":"p2","count":1}`
	for _, c := range []struct {
		q    SubjectQuery
		want string
	}{
		{SubjectQuery{}, "GET /ent/v2/subjects "},
		{SubjectQuery{Ownership: "system"}, "GET /ent/v2/subjects?ownership=system "},
		{SubjectQuery{IDs: []string{"a", "b"}}, "GET /ent/v2/subjects?subject_ids=a%2Cb "},
		{SubjectQuery{Count: 1}, "GET /ent/v2/subjects?count=1 "},
		{SubjectQuery{PageToken: "p2"}, "GET /ent/v2/subjects?next_page_token=p2 "},
	} {
		s := &subjectServer{answers: []string{page}}
		got, err := subjectClient(t, s).ListSubjects(context.Background(), c.q)
		if err != nil || len(got.Subjects) != 1 || got.NextPageToken != "p2" {
			t.Errorf("%+v: %+v, %v", c.q, got, err)
		}
		if len(s.requests) != 1 || s.requests[0] != c.want {
			t.Errorf("%+v sent %q, want %q", c.q, s.requests, c.want)
		}
	}
	if _, err := subjectClient(t, &subjectServer{answers: []string{"[1]"}}).ListSubjects(context.Background(), SubjectQuery{}); err == nil {
		t.Error("an answer that is not a page was taken as one")
	}
}
