package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"clapper/studio"
)

// A service that always hands a next page token back is read for at most
// 100 pages, and the stop is said; one that hands a token back a second
// time (a cycle) is read once round.
func TestSubjectPagingIsBounded(t *testing.T) {
	isolated(t)
	var pages atomic.Int32
	var cycle atomic.Bool
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		next := fmt.Sprint("p", n)
		if cycle.Load() {
			next = fmt.Sprint("p", n%3)
		}
		fmt.Fprintf(w, `{"subjects":[{"id":"s%d","name":"sub %d","images":["https://x/%d.png"]}],"next_page_token":%q}`, n, n, n, next)
	}))
	defer svc.Close()
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{BaseURL: svc.URL, APIKey: "k"}), studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.SyncSubjects(context.Background())
	if err == nil || !strings.Contains(err.Error(), "more than 100 pages") || pages.Load() != 100 {
		t.Fatalf("endless paging: %d pages read, %v", pages.Load(), err)
	}
	if lib, _ := s.Subjects(context.Background()); len(lib) != 100 {
		t.Errorf("the library keeps what was read: %d", len(lib))
	}
	pages.Store(0)
	cycle.Store(true)
	if _, err := s.SyncSubjects(context.Background()); err != nil || pages.Load() > 4 {
		t.Errorf("a cycle of tokens: %d pages, %v", pages.Load(), err)
	}
}

// The service's subject text is held to the spec's bounds before it is
// stored: a name of 64 characters, a style of 100, a description of 2,000,
// at most 3 images.
func TestSubjectTextIsCutToItsBounds(t *testing.T) {
	isolated(t)
	huge := strings.Repeat("é", 5000)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"subjects":[{"id":"s1","name":%q,"style":%q,"description":%q,"images":["a","b","c","d"]}]}`, huge, huge, huge)
	}))
	defer svc.Close()
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{BaseURL: svc.URL, APIKey: "k"}), studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lib, err := s.SyncSubjects(context.Background())
	if err != nil || len(lib) != 1 {
		t.Fatalf("%v %v", lib, err)
	}
	sb := lib[0]
	for _, c := range []struct {
		what string
		got  string
		max  int
	}{{"name", sb.Name, 64}, {"style", sb.Style, 100}, {"description", sb.Description, 2000}} {
		if n := len([]rune(c.got)); n != c.max+1 || !strings.HasSuffix(c.got, "…") {
			t.Errorf("%s: %d characters stored, want %d and an ellipsis", c.what, n, c.max)
		}
	}
	if len(sb.Images) != 3 {
		t.Errorf("images: %d stored, want 3", len(sb.Images))
	}
}

// A subject's text exactly at the spec's bounds (a name of 64 characters,
// a style of 100, a description of 2,000) is stored whole, with no
// ellipsis.
func TestSubjectTextAtItsBoundsIsKeptWhole(t *testing.T) {
	isolated(t)
	name, style, desc := strings.Repeat("é", 64), strings.Repeat("s", 100), strings.Repeat("d", 2000)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"subjects":[{"id":"s1","name":%q,"style":%q,"description":%q,"images":["a","b","c"]}]}`, name, style, desc)
	}))
	defer svc.Close()
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{BaseURL: svc.URL, APIKey: "k"}), studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lib, err := s.SyncSubjects(context.Background())
	if err != nil || len(lib) != 1 {
		t.Fatalf("%v %v", lib, err)
	}
	if sb := lib[0]; sb.Name != name || sb.Style != style || sb.Description != desc || len(sb.Images) != 3 {
		t.Errorf("a subject at its bounds stored as %q, %q, %d characters of description, %d images", sb.Name, sb.Style, len(sb.Description), len(sb.Images))
	}
}
