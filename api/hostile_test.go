package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// hostile is what issue 11 saw a server send: it clears the screen and
// writes the clipboard. The C1 CSI (U+009B) and DEL are added.
const hostile = `E\u001b[2J\u001b]52;c;SGVsbG8=\u0007\u009b31m\u007f`

// controlIn names the first control rune in s, or "" when there is none.
func controlIn(s string) string {
	for _, r := range s {
		if isControl(r) && r != '\n' && r != '\t' {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// stringsOf lists every string field of a decoded value with its path.
func stringsOf(v reflect.Value, path string, out map[string]string) {
	switch v.Kind() {
	case reflect.String:
		out[path] = v.String()
	case reflect.Pointer:
		if !v.IsNil() {
			stringsOf(v.Elem(), path, out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			stringsOf(v.Field(i), path+"."+v.Type().Field(i).Name, out)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range v.Len() {
				stringsOf(v.Index(i), path+"[]", out)
			}
		}
	}
}

// Issue 11 item 1: "Clean every server string at the one place it enters,
// so no later sentence can reintroduce it."
func TestEveryAnswerDecodesCleaned(t *testing.T) {
	h := `"` + hostile + `"`
	bodies := map[string]any{
		`{"id":` + h + `,"state":` + h + `,"err_code":` + h + `,"payload":` + h + `,"created_at":` + h + `,"callback_url":` + h + `,
		  "creations":[{"id":` + h + `,"url":` + h + `,"cover_url":` + h + `,"watermarked_url":` + h + `}],
		  "timing_prompts":[{"from":0,"to":1,"prompt":` + h + `}]}`: &TaskResult{},
		`{"task_id":` + h + `,"id":` + h + `,"state":` + h + `,"model":` + h + `,"prompt":` + h + `,"images":` + h + `,"sounds":[` + h + `],
		  "aspect_ratio":` + h + `,"resolution":` + h + `,"movement_amplitude":` + h + `,"payload":` + h + `,"created_at":` + h + `,"story":` + h + `,
		  "timing_prompts":[{"from":0,"to":1,"prompt":` + h + `}],"voice_id":` + h + `,"demo_audio":` + h + `,"file_url":` + h + `}`: &Task{},
		`{"id":` + h + `,"type":` + h + `,"creator_id":` + h + `,"state":` + h + `,"input":{"x":` + h + `},"err_code":` + h + `,"err_msg":` + h + `,"signed_url":` + h + `,
		  "created_at":` + h + `,"updated_at":` + h + `,"job_records":[{"type":` + h + `,"index":0,"jobs":[{"id":` + h + `,"type":` + h + `,"input":` + h + `,
		  "output":` + h + `,"state":` + h + `,"err_code":` + h + `,"err_msg":` + h + `,"signed_url":` + h + `,"created_at":` + h + `,"updated_at":` + h + `,
		  "mv_generate_video_input":{"duration":5,"prompt":` + h + `,"lyric_text":` + h + `,"signed_images":[` + h + `]}}]}]}`: &OneClickJob{},
		`{"id":` + h + `}`: &IDResponse{},
		`{"code":400,"reason":` + h + `,"message":` + h + `,"metadata":{"trace_id":` + h + `,"fields":[` + h + `]}}`: &ErrorBody{},
	}
	for body, v := range bodies {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		fields := map[string]string{}
		stringsOf(reflect.ValueOf(v), reflect.TypeOf(v).Elem().Name(), fields)
		for path, s := range fields {
			if c := controlIn(s); c != "" {
				t.Errorf("%s = %q still holds %s", path, s, c)
			}
		}
		if n := strings.Count(body, h); len(fields) < n-1 { // input of the job is kept as JSON text
			t.Errorf("%T: only %d string fields seen for %d hostile values", v, len(fields), n)
		}
	}
	var r TaskResult
	if err := json.Unmarshal([]byte(`{"id":"1","state":"failed","err_code":"`+hostile+`"}`), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.ErrCode, "E") || controlIn(r.ErrCode) != "" {
		t.Errorf("err_code cleaned to %q", r.ErrCode)
	}
	if s := Explain(r.ErrCode, 0); controlIn(s) != "" || strings.ContainsRune(s, 0x1b) {
		t.Errorf("Explain reintroduced a control: %q", s)
	}
}

// The walk cleans strings in structs, pointers and slices; a map or an
// interface field in an answer type would escape it.
func TestAnswerTypesHoldNoMapsOrInterfaces(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var check func(reflect.Type, string)
	check = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Map, reflect.Interface:
			t.Errorf("%s is a %s: cleanStrings cannot reach its text", path, typ.Kind())
		case reflect.Pointer, reflect.Slice, reflect.Array:
			check(typ.Elem(), path+"[]")
		case reflect.Struct:
			for i := range typ.NumField() {
				check(typ.Field(i).Type, path+"."+typ.Field(i).Name)
			}
		}
	}
	for _, v := range []any{Task{}, TaskResult{}, OneClickJob{}, IDResponse{}, ErrorBody{}} {
		check(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}
}

func TestRejectionAndHeadersArriveCleaned(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(TraceHeader, "tr\u009b2J") // Go's transport refuses C0 bytes in headers
		if r.URL.Path == "/ent/v2/tasks/html/creations" {
			w.WriteHeader(418)
			io.WriteString(w, "<html>\x1b[2J\u009b1m teapot</html>")
			return
		}
		w.WriteHeader(400)
		io.WriteString(w, `{"code":400,"reason":"`+hostile+`","message":"`+hostile+`","metadata":{"fields":["`+hostile+`"]}}`)
	})
	for _, id := range []string{"json", "html"} {
		_, err := c.Get(context.Background(), id)
		e, ok := AsError(err)
		if !ok {
			t.Fatalf("%s: %v", id, err)
		}
		for _, s := range []string{err.Error(), e.Explanation(), e.Message, e.Reason, e.TraceID, strings.Join(e.Fields, ",")} {
			if c := controlIn(s); c != "" || strings.ContainsRune(s, 0x1b) {
				t.Errorf("%s: %q holds %s", id, s, c)
			}
		}
	}
}

// Issue 11 item 2: "Re-encode what clapper prints with every control
// character escaped (\u009b)".
func TestEscapeJSONEscapesEveryControlAndKeepsTheRest(t *testing.T) {
	in := []byte("{\n  \"a\": \"x\u009b31m\x7fy\u2028\xffz\",\n  \"\u0085k\": [1.50, true, null, \"q\\\"\\\\\\u001b\"],\n  \"e\": \"caf\u00e9 \\/ <&>\"\n}")
	if !json.Valid(in) {
		t.Fatal("test input is not JSON")
	}
	out, err := EscapeJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"x\\u009b31m\\u007fy\\u2028\\ufffdz\",\n  \"\\u0085k\": [1.50, true, null, \"q\\\"\\\\\\u001b\"],\n  \"e\": \"caf\u00e9 \\/ <&>\"\n}"
	if string(out) != want {
		t.Errorf("EscapeJSON\n got %s\nwant %s", out, want)
	}
	for i, r := range string(out) {
		if r == utf8.RuneError || (isControl(r) && r != '\n') {
			t.Errorf("raw control %U at byte %d", r, i)
		}
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("values changed: %v vs %v", a, b)
	}
	if _, err := EscapeJSON([]byte(`{"a":`)); err == nil {
		t.Error("a broken text was passed as JSON")
	}
}

// Issue 11 item 3: "Scrub after decoding, before anything is stored or
// printed; test with keys holding /, +, " and non-ASCII."
func TestAPIKeyScrubbedInEveryJSONSpelling(t *testing.T) {
	for _, tc := range []struct{ key, echo string }{
		{"KEY/SECRET", `KEY\/SECRET`},
		{"tok-a+b=c", `tok-a\u002bb\u003dc`},
		{`tok-q"uote`, `tok-q\"uote`},
		{`tok-q"uote`, `tok-q\u0022uote`},
		{"tok-clé-ñ", `tok-cl\u00e9-\u00f1`},
		{"tok-clé-ñ", "tok-clé-ñ"},
		{"KEY/SECRET", `KEY\u001b[0m\/SECRET`}, // cleaning would join it up again
		{"12345678", `12345678`},
	} {
		srv := func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				io.WriteString(w, `{"task_id":"1","state":"created","prompt":"echo `+tc.echo+`","payload":"`+tc.echo+`"}`)
				return
			}
			w.WriteHeader(401)
			io.WriteString(w, `{"code":401,"reason":"Unauthorized","message":"bad token `+tc.echo+`","metadata":{"trace_id":"`+tc.echo+`","fields":["`+tc.echo+`"]}}`)
		}
		c := newTestClient(t, srv)
		c.apiKey = tc.key

		_, err := c.Get(context.Background(), "1")
		e, ok := AsError(err)
		if !ok {
			t.Fatalf("%q: %v", tc.key, err)
		}
		for _, s := range []string{err.Error(), e.Message, e.TraceID, strings.Join(e.Fields, ",")} {
			if strings.Contains(s, tc.key) || !strings.Contains(s, "[redacted]") {
				t.Errorf("key %q echoed as %s: rejection holds %q", tc.key, tc.echo, s)
			}
		}

		task, err := c.Create(context.Background(), OpText2Video, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(task.Prompt, tc.key) || strings.Contains(task.Payload, tc.key) {
			t.Errorf("key %q echoed as %s: decoded task holds it: %q", tc.key, tc.echo, task.Prompt)
		}
		var raw map[string]string
		if err := json.Unmarshal(task.Raw, &raw); err != nil {
			t.Fatalf("raw is no longer JSON: %s", task.Raw)
		}
		for k, v := range raw {
			if strings.Contains(CleanText(v), tc.key) || bytes.Contains(task.Raw, []byte(tc.key)) {
				t.Errorf("key %q echoed as %s: raw %s holds it: %s", tc.key, tc.echo, k, task.Raw)
			}
		}
		if raw["task_id"] != "1" {
			t.Errorf("scrubbing changed the rest: %s", task.Raw)
		}
	}
}

func TestScrubKeepsABodyWithoutTheKeyAsReceived(t *testing.T) {
	body := []byte("{ \"a\" : \"x\\/y\\u002b\u009b\" ,\"n\":1.0 }")
	if got := Scrub(body, "secret-key"); !bytes.Equal(got, body) {
		t.Errorf("Scrub changed %s to %s", body, got)
	}
	// The embedded sandbox's token is in every URL it answers.
	urls := []byte(`{"url":"http://127.0.0.1:1/_sandbox/files/1.png"}`)
	if got := Scrub(urls, "sandbox"); !bytes.Equal(got, urls) {
		t.Errorf("a key too short to be secret cut %s to %s", urls, got)
	}
}

// Issue 11 item 9: "An answer larger than the read cap gives 'unexpected
// end of JSON input'. Say that the answer exceeded N MB."
func TestAnswerOverTheReadCapIsNamed(t *testing.T) {
	var calls atomic.Int32
	big := `{"id":"1","state":"success","payload":"` + strings.Repeat("x", 1<<20) + `"}`
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.WriteString(w, big)
	})
	c.maxBody = 1 << 20
	_, err := c.Get(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "the service's answer exceeded 1 MB") || strings.Contains(err.Error(), "unexpected end") {
		t.Errorf("err = %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("an answer too large was read %d times", calls.Load())
	}
	c.maxBody = int64(len(big))
	if _, err := c.Get(context.Background(), "1"); err != nil {
		t.Errorf("an answer of exactly the cap: %v", err)
	}
}

// A decoding error quotes the value it could not read: that value is the
// service's text too.
func TestDecodingErrorsQuoteTheValueCleaned(t *testing.T) {
	for _, body := range []string{
		"{\"credits\":\"1\u009b2J\"}",
		"{\"credits\":\"\x1b]52;c;eA==\x07\"}",
		"{\"progress\":\"1.5\u009b\"}",
		"{\"duration\":\"x\u009b2J\"}",
	} {
		var r TaskResult
		err := json.Unmarshal([]byte(body), &r)
		if err == nil {
			t.Errorf("%q decoded", body)
			continue
		}
		if c := controlIn(err.Error()); c != "" || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("error %q holds %s", err, c)
		}
	}
}
