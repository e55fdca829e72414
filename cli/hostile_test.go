package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileCode is an err_code as issue 11 saw it ("clears the screen and
// writes the clipboard"), JSON-escaped, followed by the same attack in raw
// C1 bytes (U+009B is CSI on many terminals), DEL and a byte that is not
// UTF-8, which are all valid inside a JSON string.
const hostileCode = `E\u001b[2J\u001b]52;c;SGVsbG8=\u0007` + "\u009b2J\u009d52;c;eA==\u009c\x7f\xff"

// unsafeByte describes the first byte sequence in s a terminal could act
// on: C0 controls but newline and tab, DEL, C1 controls (UTF-8 C2 80-9F),
// U+2028/U+2029, or bytes that are not UTF-8.
func unsafeByte(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("byte %#x at %d", s[i], i)
		case (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029':
			return fmt.Sprintf("%U at %d", r, i)
		}
		i += size
	}
	return ""
}

func assertTerminalSafe(t *testing.T, what string, r run) {
	t.Helper()
	for name, s := range map[string]string{"stdout": r.out, "stderr": r.err} {
		if u := unsafeByte(s); u != "" {
			t.Errorf("%s: %s holds %s:\n%q", what, name, u, s)
		}
	}
}

// Issue 11 item 1: "get, create --wait and watch print it (a server
// answering err_code: "E\u001b[2J\u001b]52;c;...\u0007" clears the screen and
// writes the clipboard)."
func TestHostileErrCodeNeverReachesTheTerminal(t *testing.T) {
	failed := `{"id":"h1","state":"failed","err_code":"` + hostileCode + `","credits":0,"creations":null}`
	svc := &fakeService{answers: map[string][]string{
		"POST /ent/v2/text2video":        {`{"task_id":"h1","state":"created","prompt":"` + hostileCode + `"}`},
		"GET /ent/v2/tasks/h1/creations": {failed},
	}}
	r := runCLI(t, svc, "", "get", "h1")
	assertTerminalSafe(t, "get", r)
	if r.code != 0 || !strings.Contains(r.out, "error: E") || !strings.Contains(r.out, "The service reported E") {
		t.Errorf("get: exit %d\n%s%s", r.code, r.out, r.err)
	}

	r = runCLI(t, svc, "", "create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--wait", "--no-download")
	assertTerminalSafe(t, "create --wait", r)
	if r.code != 1 || !strings.Contains(r.out, "task h1: failed") {
		t.Errorf("create --wait: exit %d\n%s%s", r.code, r.out, r.err)
	}

	data, base := t.TempDir(), serve(t, svc) // history is kept per service address
	exec := func(args ...string) run {
		return runCLIData(t, data, append(args, "--base-url", base, "--api-key", "k")...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"); r.code != 0 {
		t.Fatal(r.err)
	}
	r = exec("watch", "--no-download")
	assertTerminalSafe(t, "watch", r)
	if !strings.Contains(r.out, "h1: failed (E") {
		t.Errorf("watch: exit %d\n%s%s", r.code, r.out, r.err)
	}
	assertTerminalSafe(t, "history", exec("history"))
}

// Issue 11 item 2: "--json output (get, history, models, create) writes C1
// controls (U+0080-U+009F) and other control bytes as raw bytes. Re-encode
// what clapper prints with every control character escaped (\u009b), even
// where the service's answer is passed through "as received"."
func TestJSONOutputEscapesEveryControl(t *testing.T) {
	failed := `{"id":"h1","state":"failed","err_code":"` + hostileCode + `","credits":0,"creations":null}`
	svc := &fakeService{answers: map[string][]string{
		"POST /ent/v2/text2video": {`{"task_id":"h2","state":"created","prompt":"` + hostileCode + `"}`,
			`{"task_id":"h3","state":"created","prompt":"` + hostileCode + `"}`},
		"GET /ent/v2/tasks/h1/creations": {failed},
		"GET /ent/v2/tasks/h3/creations": {failed},
	}}
	data, base := t.TempDir(), serve(t, svc) // history is kept per service address
	exec := func(args ...string) run {
		return runCLIData(t, data, append(args, "--base-url", base, "--api-key", "k")...)
	}
	prompt := "prompt=a fox\u009b2J\x7f in snow"
	for _, args := range [][]string{
		{"get", "h1", "--json"},
		{"create", "text2video", "--set", "model=svcq3-pro", "--set", prompt, "--json"},
		{"create", "text2video", "--set", "model=svcq3-pro", "--set", prompt, "--wait", "--no-download", "--json"},
		{"create", "text2video", "--set", "model=svcq3-pro", "--set", prompt, "--dry-run"},
		{"history", "--json"},
		{"models", "text2video", "--json"},
	} {
		r := exec(args...)
		name := strings.Join(args[:2], " ") + " " + args[len(args)-1]
		assertTerminalSafe(t, name, r)
		if r.out == "" {
			t.Errorf("%s printed nothing: %s", name, r.err)
		}
		for i, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
			if args[0] == "history" && !json.Valid([]byte(line)) {
				t.Errorf("%s: line %d is not JSON: %s", name, i+1, line)
			}
		}
		if args[0] != "history" && !json.Valid([]byte(r.out)) {
			t.Errorf("%s: not JSON:\n%s", name, r.out)
		}
		if args[0] != "models" && !strings.Contains(r.out, `\u009b2J`) {
			t.Errorf("%s: the C1 control is not written escaped:\n%s", name, r.out)
		}
	}
	// As received: the service's own spelling stays, only controls change.
	r := exec("get", "h1", "--json")
	if !strings.Contains(r.out, `"err_code":"E\u001b[2J\u001b]52;c;SGVsbG8=\u0007\u009b2J\u009d52;c;eA==\u009c\u007f\ufffd"`) {
		t.Errorf("get --json: %s", r.out)
	}
}

// Issue 11 item 3: "A server that echoes it JSON-escaped (KEY\/SECRET,
// \u002b) gets it stored in plain text in history (rejection.message) after
// decoding. ... test with keys holding /, +, " and non-ASCII."
func TestEchoedKeyIsNeitherStoredNorPrinted(t *testing.T) {
	for _, tc := range []struct{ key, echo string }{
		{"KEY/SECRET", `KEY\/SECRET`},
		{"tok+y/é\"q", `tok\u002by\/\u00e9\"q`},
		{"tok+y/é\"q", `tok+y/é\u0022q`},
	} {
		svc := &fakeService{
			answers: map[string][]string{"POST /ent/v2/text2video": {
				`{"code":401,"reason":"Unauthorized","message":"token ` + tc.echo + ` is not valid","metadata":{"trace_id":"` + tc.echo + `","fields":["` + tc.echo + `"]}}`}},
			statuses: map[string]int{"POST /ent/v2/text2video": 401},
		}
		data, base := t.TempDir(), serve(t, svc)
		r := runCLIData(t, data, "create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p",
			"--base-url", base, "--api-key", tc.key)
		if r.code != 1 || !strings.Contains(r.err, "token [redacted] is not valid") {
			t.Errorf("key %q: exit %d: %s", tc.key, r.code, r.err)
		}
		h := runCLIData(t, data, "history", "--json", "--base-url", base, "--api-key", tc.key)
		if !strings.Contains(h.out, `"message":"token [redacted] is not valid"`) {
			t.Errorf("key %q: history: %s", tc.key, h.out)
		}
		for _, out := range []string{r.out, r.err, h.out} {
			if strings.Contains(out, tc.key) {
				t.Errorf("key %q printed:\n%s", tc.key, out)
			}
		}
		keyAtRest(t, data, tc.key)
	}
}

// keyAtRest fails when any file under dir holds key, verbatim or in the
// spellings JSON gives it.
func keyAtRest(t *testing.T, dir, key string) {
	t.Helper()
	esc, _ := json.Marshal(key)
	spellings := [][]byte{[]byte(key), bytes.Trim(esc, `"`), []byte(strings.ReplaceAll(key, "/", `\/`))}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range spellings {
			if bytes.Contains(b, s) {
				t.Errorf("%s holds the key as %s", p, s)
			}
		}
		return nil
	})
}

// serve starts svc for the test and returns its address.
func serve(t *testing.T, svc http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return srv.URL
}
