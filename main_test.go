package main

import (
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
	dir := t.TempDir()
	args := append(wrap, os.Args[0], "-test.run=^$")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), mainChild+"=--data-dir "+dir+" mcp", studio.EnvConfigDir+"="+dir, studio.EnvAPIKey+"=")
	// The server reads requests until its input ends: held open.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
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
			return cmd.Process, exited, wal
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
