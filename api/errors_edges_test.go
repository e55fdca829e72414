package api

import (
	"net/http"
	"strings"
	"testing"
)

// A rejection reads as its reason (or, without one, what its status
// means), its status, its message, the fields the message does not name
// already, and its trace id.
func TestRejectionText(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{Status: 502}, "Bad Gateway (HTTP 502)"},
		{Error{Status: 400, Reason: ReasonFieldInvalid, Message: "invalid field: duration"}, "FieldInvalid (HTTP 400): invalid field: duration"},
		{Error{Status: 400, Reason: ReasonFieldInvalid, Message: "invalid fields", Fields: []string{"duration", "ratio"}},
			"FieldInvalid (HTTP 400): invalid fields [fields: duration, ratio]"},
		{Error{Status: 400, Reason: ReasonFieldInvalid, Message: "invalid field: duration", Fields: []string{"duration"}},
			"FieldInvalid (HTTP 400): invalid field: duration"},
		{Error{Status: 429, Reason: ReasonQuotaExceeded, TraceID: "tr-1"}, "QuotaExceeded (HTTP 429) (trace id tr-1)"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v reads %q, want %q", c.e, got, c.want)
		}
	}
}

// Only the service's own "no such task" (404 TaskNotFound) says a task is
// unknown; a 404 of another reason, or TaskNotFound under another status,
// does not.
func TestOnlyA404TaskNotFoundIsAnUnknownTask(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want bool
	}{
		{Error{Status: 404, Reason: ReasonTaskNotFound}, true},
		{Error{Status: 404, Reason: ReasonNotFound}, false},
		{Error{Status: 404}, false},
		{Error{Status: 400, Reason: ReasonTaskNotFound}, false},
	} {
		if got := c.e.TaskUnknown(); got != c.want {
			t.Errorf("%+v: task unknown %v, want %v", c.e, got, c.want)
		}
	}
}

// Only a 429 or a 5xx may succeed later unchanged.
func TestTemporaryIs429Or5xx(t *testing.T) {
	for status, want := range map[int]bool{400: false, 401: false, 404: false, 428: false, 429: true, 430: false, 499: false, 500: true, 503: true} {
		if got := (&Error{Status: status}).Temporary(); got != want {
			t.Errorf("HTTP %d temporary %v, want %v", status, got, want)
		}
	}
}

// An unknown reason is explained by its status: none (an err_code of a
// task), a 5xx, a 429, or any other.
func TestExplainUnknownReasons(t *testing.T) {
	for _, c := range []struct {
		status int
		want   string
	}{
		{0, "The service reported Mystery."},
		{500, "The service failed; try again later."},
		{429, "The service asks to slow down."},
		{418, "The service rejected the request (I'm a teapot)."},
	} {
		if got := Explain("Mystery", c.status); got != c.want {
			t.Errorf("Explain(Mystery, %d) = %q, want %q", c.status, got, c.want)
		}
	}
	if got := Explain(ReasonTaskNotFound, 0); !strings.Contains(got, "No task with this id") {
		t.Errorf("a known reason explained as %q", got)
	}
}

// CapText keeps a text of exactly n bytes whole; a longer one is cut on a
// rune boundary at or before n and says how long the whole was.
func TestCapTextAtTheBound(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc… (cut; 4 B in all)"},
		{"aé", 2, "a… (cut; 3 B in all)"},             // é is 2 bytes: not split
		{"\x80\x80\x80abc", 2, "… (cut; 6 B in all)"}, // no rune starts before n
	} {
		if got := CapText(c.s, c.n); got != c.want {
			t.Errorf("CapText(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// A rejection whose body is not JSON keeps its first 200 bytes as the
// message, marked when more was cut.
func TestPlainRejectionBodyKeeps200Bytes(t *testing.T) {
	for n, want := range map[int]string{200: strings.Repeat("x", 200), 201: strings.Repeat("x", 200) + "…"} {
		e := decodeError(502, nil, []byte(strings.Repeat("x", n)))
		if e.Message != want {
			t.Errorf("a %d-byte page: message of %d bytes %q…", n, len(e.Message), e.Message[len(e.Message)-5:])
		}
	}
}

// A web page where the service's answer should be (a wrong address, a
// proxy's error page) is named as such, with its title, never its markup.
func TestAWebPageIsNamedNotPrinted(t *testing.T) {
	page := []byte("<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body><h1>404</h1><script>x()</script></body></html>")
	for _, h := range []http.Header{{"Content-Type": {"text/html; charset=utf-8"}}, {}} {
		e := decodeError(404, h, page)
		if !strings.Contains(e.Message, `web page ("Error response")`) || strings.Contains(e.Message, "<") || !strings.Contains(e.Message, "service address") {
			t.Errorf("%v: %q", h, e.Message)
		}
	}
	if e := decodeError(502, http.Header{}, []byte("bad gateway")); e.Message != "bad gateway" {
		t.Errorf("a plain text answer: %q", e.Message)
	}
}
