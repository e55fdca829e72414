// Command mutants runs the hand-made mutants of a package whose tests
// gremlins cannot drive well (ui's running programs, mcp's server): each
// mutant is a plausible bug a reviewer would plant, written as text to
// replace in one file. For each one it replaces the text, runs the
// package's tests, puts the file back and says whether a test failed
// (KILLED) or not (LIVED), then prints the package's efficacy as gremlins
// does, so `make mutate` reads both the same way.
//
//	go run ./mutants [-only FILE,...] [-timeout N] mutants/ui.txt
//
// It mutates the tree it runs in: `make mutate` runs it in a private copy,
// and it puts every file back even when interrupted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A mutant replaces Old by New in File; Old must occur there exactly once,
// so a mutant the code has moved away from is named (stale), not skipped.
type mutant struct {
	Name, File, Old, New string
	Line                 int // where it is declared, for messages
}

// parse reads a list of mutants:
//
//	# a comment
//	== name: what the bug does
//	file: ui/app.go
//	- text it replaces (one line each, "-" alone for an empty line)
//	+ text it puts instead
func parse(r io.Reader, name string) (pkg string, ms []mutant, err error) {
	sc := bufio.NewScanner(r)
	var cur *mutant
	var old, repl []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		cur.Old, cur.New = strings.Join(old, "\n"), strings.Join(repl, "\n")
		switch {
		case cur.File == "":
			return fmt.Errorf("%s:%d: mutant %q names no file (file: DIR/NAME.go)", name, cur.Line, cur.Name)
		case cur.Old == "":
			return fmt.Errorf("%s:%d: mutant %q replaces nothing (lines starting with \"- \")", name, cur.Line, cur.Name)
		case cur.Old == cur.New:
			return fmt.Errorf("%s:%d: mutant %q changes nothing", name, cur.Line, cur.Name)
		case pkg != "" && filepath.Dir(cur.File) != pkg:
			return fmt.Errorf("%s:%d: mutant %q is in %s, not in package %s: one list a package", name, cur.Line, cur.Name, filepath.Dir(cur.File), pkg)
		}
		pkg = filepath.Dir(cur.File)
		ms = append(ms, *cur)
		cur, old, repl = nil, nil, nil
		return nil
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "== "):
			if err := flush(); err != nil {
				return "", nil, err
			}
			cur = &mutant{Name: strings.TrimPrefix(line, "== "), Line: n}
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case cur == nil:
			return "", nil, fmt.Errorf("%s:%d: %q is outside a mutant (start one with \"== name\")", name, n, line)
		case strings.HasPrefix(line, "file: "):
			cur.File = strings.TrimSpace(strings.TrimPrefix(line, "file: "))
		case marked(line, '-'):
			old = append(old, strings.TrimPrefix(line[1:], " "))
		case marked(line, '+'):
			repl = append(repl, strings.TrimPrefix(line[1:], " "))
		default:
			return "", nil, fmt.Errorf("%s:%d: %q: a mutant's lines start with \"file: \", \"- \" or \"+ \"", name, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if err := flush(); err != nil {
		return "", nil, err
	}
	if len(ms) == 0 {
		return "", nil, fmt.Errorf("%s: no mutant", name)
	}
	return pkg, ms, nil
}

// marked reports a line of old (-) or new (+) text: the mark alone, or
// followed by a space or a tab.
func marked(line string, mark byte) bool {
	return line != "" && line[0] == mark && (len(line) == 1 || line[1] == ' ' || line[1] == '\t')
}

// apply answers the file's text with the mutant in it. One line of old
// text is replaced where it occurs in a line; several lines are matched as
// whole lines with the file's indentation ignored, so a list need not copy
// tabs. Either must occur exactly once.
func apply(src []byte, m mutant) ([]byte, error) {
	if !strings.Contains(m.Old, "\n") {
		switch strings.Count(string(src), m.Old) {
		case 0:
			return nil, fmt.Errorf("stale: the text to replace is no longer in %s", m.File)
		case 1:
			return []byte(strings.Replace(string(src), m.Old, m.New, 1)), nil
		}
		return nil, fmt.Errorf("stale: the text to replace occurs more than once in %s: quote more of it", m.File)
	}
	lines := strings.Split(string(src), "\n")
	old := strings.Split(m.Old, "\n")
	at := -1
	for i := 0; i+len(old) <= len(lines); i++ {
		if matches(lines[i:i+len(old)], old) {
			if at >= 0 {
				return nil, fmt.Errorf("stale: the text to replace occurs more than once in %s (lines %d and %d): quote more of it", m.File, at+1, i+1)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("stale: the text to replace is no longer in %s", m.File)
	}
	indent := lines[at][:len(lines[at])-len(strings.TrimLeft(lines[at], " \t"))]
	var repl []string
	if m.New != "" {
		for _, l := range strings.Split(m.New, "\n") {
			repl = append(repl, indent+l)
		}
	}
	out := append(append(append([]string{}, lines[:at]...), repl...), lines[at+len(old):]...)
	return []byte(strings.Join(out, "\n")), nil
}

func matches(lines, old []string) bool {
	for i := range old {
		if strings.TrimSpace(lines[i]) != strings.TrimSpace(old[i]) {
			return false
		}
	}
	return true
}

// Outcomes, named as gremlins names them.
const (
	killed    = "KILLED"
	lived     = "LIVED"
	timedOut  = "TIMED OUT"
	notViable = "NOT VIABLE"
	stale     = "STALE"
)

// runTests runs the package's tests once and answers how they ended.
// The tests run in a process group of their own, so a timeout ends the
// test binary too, not only `go test`.
func runTests(ctx context.Context, pkg string, limit time.Duration) (outcome string, out []byte) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-failfast", "./"+pkg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	switch {
	case err == nil:
		return lived, b.Bytes()
	case ctx.Err() != nil:
		return timedOut, b.Bytes()
	case bytes.Contains(b.Bytes(), []byte("[build failed]")) || bytes.Contains(b.Bytes(), []byte("[setup failed]")):
		return notViable, b.Bytes()
	}
	return killed, b.Bytes()
}

func main() {
	only := flag.String("only", "", "comma-separated files (DIR/NAME.go): run only the mutants of these")
	coeff := flag.Int("timeout", 5, "a mutant's tests time out after this many times the unmutated run")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./mutants [-only FILE,...] [-timeout N] LIST.txt")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *only, *coeff, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(list, only string, coeff int, w io.Writer) error {
	f, err := os.Open(list)
	if err != nil {
		return err
	}
	pkg, ms, err := parse(f, list)
	f.Close()
	if err != nil {
		return err
	}
	if only != "" {
		keep := map[string]bool{}
		for _, p := range strings.Split(only, ",") {
			keep[filepath.Clean(strings.TrimSpace(p))] = true
		}
		var sel []mutant
		for _, m := range ms {
			if keep[filepath.Clean(m.File)] {
				sel = append(sel, m)
			}
		}
		ms = sel
		if len(ms) == 0 {
			fmt.Fprintf(w, "No mutant in the files given.\n")
			return nil
		}
	}
	// An interrupt ends the test under way (its context) and then the run,
	// after the file is put back.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	start := time.Now()
	fmt.Fprintf(w, "Running the tests of ./%s unmutated...\n", pkg)
	if outcome, out := runTests(ctx, pkg, 30*time.Minute); outcome != lived {
		return fmt.Errorf("the tests of ./%s do not pass unmutated (%s), so no mutant can be judged:\n%s", pkg, outcome, tail(out, 40))
	}
	limit := time.Since(start) * time.Duration(max(coeff, 1))
	counts := map[string]int{}
	for _, m := range ms {
		outcome, err := runOne(ctx, pkg, m, limit)
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; every file is put back")
		}
		if err != nil {
			return err
		}
		counts[outcome]++
		fmt.Fprintf(w, "%12s %s (%s:%d)\n", outcome, m.Name, m.File, m.Line)
	}
	k, l := counts[killed], counts[lived]
	fmt.Fprintf(w, "\nKilled: %d, Lived: %d, Not covered: 0\n", k, l)
	fmt.Fprintf(w, "Timed out: %d, Not viable: %d, Stale: %d\n", counts[timedOut], counts[notViable], counts[stale])
	if k+l > 0 {
		fmt.Fprintf(w, "Test efficacy: %.2f%%\n", 100*float64(k)/float64(k+l))
	}
	fmt.Fprintf(w, "Elapsed: %s\n", time.Since(start).Round(time.Second))
	if counts[stale]+counts[notViable] > 0 {
		return fmt.Errorf("%d mutant(s) of %s are stale or do not build: bring them up to date with the code", counts[stale]+counts[notViable], list)
	}
	return nil
}

// runOne puts the mutant in its file, runs the tests and puts the file
// back whatever happens (its mode and bytes as they were).
func runOne(ctx context.Context, pkg string, m mutant, limit time.Duration) (string, error) {
	info, err := os.Stat(m.File)
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(m.File)
	if err != nil {
		return "", err
	}
	mutated, err := apply(src, m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutant %q (line %d): %v\n", m.Name, m.Line, err)
		return stale, nil
	}
	if err := os.WriteFile(m.File, mutated, info.Mode()); err != nil {
		return "", err
	}
	outcome, _ := runTests(ctx, pkg, limit)
	if err := os.WriteFile(m.File, src, info.Mode()); err != nil {
		return "", errors.Join(fmt.Errorf("%s could not be put back: restore it by hand", m.File), err)
	}
	return outcome, nil
}

// tail answers the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
