package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"clapper/internal/testenv"
)

func TestMain(m *testing.M) {
	// The build cache is content-addressed, safe to share: a fresh one
	// (the isolated home's) would build the standard library anew, a minute.
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	cleanup := testenv.Isolate()
	if err == nil {
		os.Setenv("GOCACHE", strings.TrimSpace(string(cache)))
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// A module of one package whose test checks one of its two rules: a
// mutant of the checked rule is killed, one of the other lives, one whose
// text is gone is named stale, and the file is as it was after the run.
func TestARunJudgesEachMutantAndPutsTheFileBack(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := "package wait\n\nimport \"time\"\n\n// Bound is checked.\nfunc Bound() time.Duration {\n\treturn 5 * time.Second\n}\n\n// Page is not.\nfunc Page() int {\n\treturn 20\n}\n"
	write("go.mod", "module m\n\ngo 1.22\n")
	write("wait/wait.go", src)
	write("wait/wait_test.go", "package wait\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestBound(t *testing.T) {\n\tif Bound() != 5*time.Second {\n\t\tt.Fatal(Bound())\n\t}\n}\n")
	write("list.txt", `# the wait package
== wrong unit: the bound in milliseconds
file: wait/wait.go
- return 5 * time.Second
+ return 5 * time.Millisecond

== a page one row shorter
file: wait/wait.go
- return 20
+ return 19

== the code moved away
file: wait/wait.go
- return 30
+ return 31
`)
	t.Chdir(dir)
	var out bytes.Buffer
	err := run("list.txt", "", 5, &out)
	if err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a stale mutant must fail the run, naming it: %v", err)
	}
	for _, want := range []string{
		"KILLED wrong unit: the bound in milliseconds (wait/wait.go:2)",
		"LIVED a page one row shorter (wait/wait.go:7)",
		"STALE the code moved away (wait/wait.go:12)",
		"Killed: 1, Lived: 1",
		"Test efficacy: 50.00%",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if got, _ := os.ReadFile("wait/wait.go"); string(got) != src {
		t.Errorf("the file is not put back:\n%s", got)
	}

	out.Reset()
	if err := run("list.txt", "other/file.go", 5, &out); err != nil || !strings.Contains(out.String(), "No mutant in the files given") {
		t.Errorf("-only with no mutant of those files: %v\n%s", err, out.String())
	}
}

// A list that cannot be read as mutants is refused with the line at fault.
func TestAListIsReadStrictly(t *testing.T) {
	for name, tc := range map[string]struct{ list, want string }{
		"no file":        {"== a\n- x\n+ y\n", "l:1: mutant \"a\" names no file"},
		"nothing to cut": {"== a\nfile: p/f.go\n+ y\n", "replaces nothing"},
		"same text":      {"== a\nfile: p/f.go\n- y\n+ y\n", "changes nothing"},
		"two packages":   {"== a\nfile: p/f.go\n- x\n+ y\n== b\nfile: q/f.go\n- x\n+ y\n", "not in package p"},
		"stray line":     {"x\n", "l:1: \"x\" is outside a mutant"},
		"unknown line":   {"== a\nfile: p/f.go\nx\n", "l:3: \"x\": a mutant's lines"},
	} {
		if _, _, err := parse(strings.NewReader(tc.list), "l"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// The text to replace is found whatever its indentation, must be there
// once, and lines replaced take the indentation of the first one.
func TestApplyMatchesOnceIgnoringIndentation(t *testing.T) {
	src := []byte("func f() {\n\tif a {\n\t\treturn 1\n\t}\n\treturn 2\n}\n")
	got, err := apply(src, mutant{File: "f.go", Old: "if a {\n  return 1", New: "if !a {\n\treturn 1"})
	if err != nil || string(got) != "func f() {\n\tif !a {\n\t\treturn 1\n\t}\n\treturn 2\n}\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if got, err := apply(src, mutant{File: "f.go", Old: "return 2", New: "return 3"}); err != nil || !strings.Contains(string(got), "\treturn 3\n") {
		t.Errorf("one line is replaced where it stands: %q, %v", got, err)
	}
	if _, err := apply(src, mutant{File: "f.go", Old: "return", New: "panic(0)"}); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("twice: %v", err)
	}
	if _, err := apply(src, mutant{File: "f.go", Old: "if b {\nreturn 1", New: "x"}); err == nil || !strings.Contains(err.Error(), "no longer in f.go") {
		t.Errorf("gone: %v", err)
	}
}
