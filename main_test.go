package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"clapper/internal/testenv"
	"clapper/studio"
)

// mainChild, when set, makes the test binary run main with these
// arguments: the signals main listens for are the process's own.
const mainChild = "CLAPPER_MAIN_CHILD"

func TestMain(m *testing.M) {
	if args := os.Getenv(mainChild); args != "" {
		os.Args = append([]string{"clapper"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	cleanup := testenv.Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// startServing starts `clapper mcp` on a fresh data dir, run by the
// command wrap names first (nohup) when given, and returns once its
// history is open (its write-ahead log exists): the process, what its end
// returns, and the log's path.
func startServing(t *testing.T, wrap ...string) (*os.Process, <-chan error, string) {
	t.Helper()
	proc, exited, wal, _ := startServingTold(t, wrap...)
	return proc, exited, wal
}

// startServingTold is startServing that also keeps what the process writes
// to its standard error, to read once it has ended.
func startServingTold(t *testing.T, wrap ...string) (*os.Process, <-chan error, string, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	args := append(wrap, os.Args[0], "-test.run=^$")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), mainChild+"=--data-dir "+dir+" mcp", studio.EnvConfigDir+"="+dir, studio.EnvAPIKey+"=")
	// The server reads requests until its input ends: held open.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Closed once sent: the cleanup's receive returns whether or not the
	// test took the error.
	exited := make(chan error, 1)
	go func() {
		exited <- cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		<-exited
	})
	wal := filepath.Join(dir, "history.db-wal")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(wal); err == nil {
			return cmd.Process, exited, wal, &stderr
		}
		if time.Now().After(deadline) {
			t.Fatal("the history did not open within 20 s")
		}
	}
}

// A closed terminal hangs up: clapper closes its history as on ctrl+c (the
// write-ahead log checkpointed and removed, the poller's lease given back)
// instead of dying with them left for the next start.
func TestHangUpClosesTheHistory(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		// Under nohup the child inherits the ignored hang-up and rightly
		// keeps running (TestHangUpUnderNohupIsIgnored covers that).
		t.Skip("SIGHUP is ignored in this process (run under nohup): a hang-up cannot reach the child")
	}
	proc, exited, wal := startServing(t)
	if err := proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		// Ended by a signal it caught, as ctrl+c ends it: 130.
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 130 {
			t.Fatalf("after a hang-up: %v, want exit status 130", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after a hang-up")
	}
	if _, err := os.Stat(wal); !os.IsNotExist(err) {
		t.Errorf("the write-ahead log is still there after a hang-up (%v): the history was not closed", err)
	}
}

// Under nohup a hang-up stays ignored: the process keeps running.
func TestHangUpUnderNohupIsIgnored(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Fatalf("nohup (coreutils) is needed: %v", err)
	}
	proc, exited, _ := startServing(t, nohup)
	if err := proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("a hang-up under nohup ended the process: %v", err)
	case <-time.After(2 * time.Second):
	}
}

// ctrl+c (SIGINT) stops clapper as asked: exit status 130 and no error on
// its standard error.
func TestInterruptEndsQuietly(t *testing.T) {
	proc, exited, _, stderr := startServingTold(t)
	if err := proc.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 130 {
			t.Fatalf("after ctrl+c: %v, want exit status 130", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after ctrl+c")
	}
	// The server's notice at its start is all it wrote: no error.
	for line := range strings.Lines(stderr.String()) {
		if strings.HasPrefix(line, "clapper: ") {
			t.Errorf("ctrl+c printed an error: %q", line)
		}
	}
}

// An error's words reach the terminal without their escape sequences: a
// folder named with a title-setting sequence is named, not obeyed.
func TestErrorsReachTheTerminalWithoutEscapes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a\x1b]0;pwned\x07file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mainChild+"=history --data-dir "+file+"/x", studio.EnvConfigDir+"="+t.TempDir(),
		// Written as to a terminal: through a pipe the colour writer would
		// strip every sequence itself.
		"CLICOLOR_FORCE=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() == 0 {
		t.Fatalf("a history in a folder that cannot be made: %v, want a failure", err)
	}
	if !strings.Contains(stderr.String(), "file: not a directory") || strings.ContainsAny(stderr.String(), "\x1b\x07") {
		t.Errorf("the error as printed: %q", stderr.String())
	}
}
