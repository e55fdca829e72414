package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

func TestDatabase(t *testing.T) {
	s := Get(t)
	u := s.Database(t, "tmpl", nil)
	t.Log(u)
}

// A server that does not start says why: pg_ctl's "examine the log" comes
// with the log's end, since the log goes with the cluster's folder.
func TestFailedStartCarriesTheLog(t *testing.T) {
	bin := t.TempDir()
	// The scripts run as the postgres user when the tests run as root.
	for _, d := range []string{filepath.Dir(bin), bin} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		"initdb": "#!/bin/sh\nmkdir -p \"$2\"\n",
		// -D data -l log ...: the log is the fourth argument.
		"pg_ctl": "#!/bin/sh\necho 'FATAL:  could not create lock file: Permission denied' > \"$4\"\necho 'pg_ctl: could not start server' >&2\nexit 1\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := startCluster(bin)
	if err == nil || !strings.Contains(err.Error(), "could not start server") ||
		!strings.Contains(err.Error(), "FATAL:  could not create lock file: Permission denied") {
		t.Fatalf("startCluster: %v", err)
	}
}

// A cluster whose test binary was killed is stopped and its folder removed
// by the next binary that starts one; a running binary's cluster, and a
// folder that names no binary, are left alone.
func TestOrphanedClustersAreReaped(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"orphan": strconv.Itoa(gone.Process.Pid), "running": strconv.Itoa(os.Getpid()), "unnamed": ""}
	for name, pid := range dirs {
		d := filepath.Join(tmp, clusterPrefix+name)
		if err := os.MkdirAll(filepath.Join(d, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if pid != "" {
			if err := os.WriteFile(filepath.Join(d, testerFile), []byte(pid), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var stopped []string
	reapOrphans(tmp, func(data string) error { stopped = append(stopped, data); return nil })
	if want := []string{filepath.Join(tmp, clusterPrefix+"orphan", "data")}; !slices.Equal(stopped, want) {
		t.Errorf("stopped %v, want %v", stopped, want)
	}
	for name := range dirs {
		_, err := os.Stat(filepath.Join(tmp, clusterPrefix+name))
		if kept := err == nil; kept != (name != "orphan") {
			t.Errorf("%s: kept %v", name, kept)
		}
	}
}
