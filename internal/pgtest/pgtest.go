// Package pgtest gives tests a real PostgreSQL: the server named by
// CLAPPER_TEST_PG_URL when it is set, or else a throwaway cluster started
// from Debian's postgresql package (initdb into a temporary folder, as the
// postgres user when the tests run as root, on a loopback port, fsync off).
//
// One server serves a whole test binary; each test gets a database of its
// own, cloned from a template the caller prepares once (a migrated schema),
// so a test costs a CREATE DATABASE, not a migration.
//
// Without PostgreSQL the tests that ask for it skip, saying why, unless
// CLAPPER_TEST_PG_REQUIRED is set (as .ci/run does): then they fail.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a PostgreSQL the tests may create databases on.
type Server struct {
	// URL reaches the server's maintenance database as a superuser.
	URL string
	// stop ends a cluster this package started (nil for one given by URL).
	stop func()

	mu        sync.Mutex
	templates map[string]error
}

// The two knobs of the tests' PostgreSQL, read as the test binary starts,
// before a TestMain isolates the environment (testenv clears CLAPPER_*):
// they choose the test server, and are no settings of the caller's.
var (
	givenURL = os.Getenv("CLAPPER_TEST_PG_URL")
	required = os.Getenv("CLAPPER_TEST_PG_REQUIRED") != ""
)

var (
	once    sync.Once
	shared  *Server
	why     error
	counter atomic.Int64
)

// Get returns the test binary's server, starting one on first use; a test
// without one skips (or fails when PostgreSQL is required).
func Get(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, why = start() })
	if why != nil {
		if required {
			t.Fatalf("PostgreSQL is required here (CLAPPER_TEST_PG_REQUIRED) and none could be had: %v", why)
		}
		t.Skipf("no PostgreSQL (%v): set CLAPPER_TEST_PG_URL or install Debian's postgresql", why)
	}
	return shared
}

// Stop ends the cluster this package started, if any; TestMain calls it
// after the tests ran.
func Stop() {
	if shared != nil && shared.stop != nil {
		shared.stop()
	}
}

// Database creates an empty database of its own for t, or, when template
// is not "", a copy of the template database that prepare filled (prepare
// runs once per template name and binary). It returns the database's URL;
// the database is dropped when t ends.
func (s *Server) Database(t testing.TB, template string, prepare func(url string) error) string {
	t.Helper()
	if template != "" {
		if err := s.template(template, prepare); err != nil {
			t.Fatalf("preparing the template %s: %v", template, err)
		}
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if err := s.exec(create); err != nil {
		t.Fatalf("%s: %v", create, err)
	}
	t.Cleanup(func() { _ = s.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	return s.urlOf(name)
}

func (s *Server) template(name string, prepare func(url string) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err, done := s.templates[name]; done {
		return err
	}
	err := s.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	if err == nil {
		err = s.exec("CREATE DATABASE " + name)
	}
	if err == nil && prepare != nil {
		err = prepare(s.urlOf(name))
	}
	s.templates[name] = err
	return err
}

// urlOf is the server's URL with the database replaced.
func (s *Server) urlOf(db string) string {
	cfg, _ := pgx.ParseConfig(s.URL)
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", cfg.User, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), db)
}

func (s *Server) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func start() (*Server, error) {
	if u := givenURL; u != "" {
		s := &Server{URL: u, templates: map[string]error{}}
		return s, s.exec("SELECT 1")
	}
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	return startCluster(bin)
}

// findBin is the newest installed PostgreSQL's bin folder.
func findBin() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", errors.New("no initdb in /usr/lib/postgresql/*/bin or on PATH")
	}
	newest := found[0]
	for _, f := range found[1:] {
		if version(f) > version(newest) {
			newest = f
		}
	}
	return filepath.Dir(newest), nil
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// startCluster runs initdb and pg_ctl, as the postgres user when this
// process is root (both refuse to run as root).
func startCluster(bin string) (*Server, error) {
	var cred *syscall.Credential
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user to run the server as: %w", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	run := func(name string, args ...string) error {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	reapOrphans(os.TempDir(), func(data string) error { return run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop") })
	root, err := os.MkdirTemp("", clusterPrefix)
	if err != nil {
		return nil, err
	}
	cleanup := func() { _ = os.RemoveAll(root) }
	if err := os.WriteFile(filepath.Join(root, testerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		cleanup()
		return nil, err
	}
	if cred != nil {
		// The postgres user must pass through the folders above the cluster.
		for d := root; d != "/" && d != "."; d = filepath.Dir(d) {
			if d == root {
				if err := os.Chown(d, uid, gid); err != nil {
					cleanup()
					return nil, err
				}
				continue
			}
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
				_ = os.Chmod(d, fi.Mode().Perm()|0o011)
			}
		}
	}
	data := filepath.Join(root, "data")
	if err := run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"); err != nil {
		cleanup()
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		cleanup()
		return nil, err
	}
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", port, root)
	if err := run("pg_ctl", "-D", data, "-l", filepath.Join(root, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		// pg_ctl says "examine the log", which goes with the folder: its
		// end goes with the error instead.
		if log, rerr := os.ReadFile(filepath.Join(root, "log")); rerr == nil {
			err = fmt.Errorf("%w\nthe server's log ends:\n%s", err, lastLines(string(log), 10))
		}
		cleanup()
		return nil, err
	}
	s := &Server{
		URL:       fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
		templates: map[string]error{},
	}
	s.stop = func() {
		_ = run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
		cleanup()
	}
	if err := s.exec("SELECT 1"); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lastLines is the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// A cluster's folder is clusterPrefix and a random name, and holds in
// testerFile the process id of the test binary that started it.
const (
	clusterPrefix = "clapper-pg-"
	testerFile    = "tester.pid"
)

// reapOrphans stops the clusters under tmp whose test binary no longer
// runs, and removes their folders: a binary killed (go test's timeout, a
// mutation run's) runs no TestMain to stop its server, which would keep its
// memory and its port until the machine restarts. A folder without a
// tester (being made, or an older run's) is left alone.
func reapOrphans(tmp string, stop func(data string) error) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, clusterPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, testerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processRuns(pid) {
			continue
		}
		_ = stop(filepath.Join(d, "data"))
		_ = os.RemoveAll(d)
	}
}

// processRuns reports whether a process runs (one of another user's
// too).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
