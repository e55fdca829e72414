package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	randv2 "math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"clapper/api"
)

// EmbeddedToken is the API token clients use against the embedded sandbox.
// The sandbox accepts any non-empty token; this one only needs to be the
// same in every process that shares the state.
const EmbeddedToken = "sandbox"

// Config tunes a sandbox. The zero value is a real-time, failure-free,
// in-memory sandbox with a random seed.
type Config struct {
	// Clock is the time the simulation runs on; nil is the wall clock.
	Clock Clock
	// Speed divides every simulated duration (generation, queueing, the
	// off-peak window): 1 is real time, 60 makes a minute pass in a second.
	// Zero means 1. URL validity, voice retention and callback retries are
	// account rules, not generation work, and stay on the clock unscaled.
	Speed float64
	// FailRate is the fraction of tasks that end failed, in [0, 1].
	FailRate float64
	// Seed fixes ids, plans and outcomes; 0 picks one at random. A state
	// file keeps the seed it was created with.
	Seed int64
	// MaxConcurrent is how many tasks run at once; more wait in queueing.
	// Zero means 5, the service's limit.
	MaxConcurrent int
	// StatePath is the file the state is kept in; "" keeps it in memory.
	StatePath string
	// Rate429 and Rate5xx are the fractions of service requests answered
	// 429 TooManyRequests (half of them with Retry-After) and 500
	// InternalServiceFailure instead of being served; SlowRate is the
	// fraction delayed by SlowDelay (zero means 2 s) before being served.
	Rate429, Rate5xx, SlowRate float64
	SlowDelay                  time.Duration
	// CallbackClient sends callbacks; nil is a client with a 10 s timeout.
	CallbackClient *http.Client
	// Logf receives diagnostics; nil is silent (a TUI may be drawing).
	Logf func(format string, args ...any)
	// AllowRemote lets Listen bind an address that is not loopback.
	AllowRemote bool
}

func (c *Config) normalize() error {
	for name, v := range map[string]float64{"FailRate": c.FailRate, "Rate429": c.Rate429, "Rate5xx": c.Rate5xx, "SlowRate": c.SlowRate} {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return fmt.Errorf("sandbox: %s %v is not a fraction in [0, 1]", name, v)
		}
	}
	if c.Rate429+c.Rate5xx > 1 {
		return fmt.Errorf("sandbox: Rate429 + Rate5xx exceed 1")
	}
	if c.Speed < 0 || math.IsNaN(c.Speed) || math.IsInf(c.Speed, 0) {
		return fmt.Errorf("sandbox: speed %v must be positive", c.Speed)
	}
	if c.MaxConcurrent < 0 || c.SlowDelay < 0 {
		return errors.New("sandbox: MaxConcurrent and SlowDelay must not be negative")
	}
	if c.Speed == 0 {
		c.Speed = 1
	}
	if c.MaxConcurrent == 0 {
		c.MaxConcurrent = 5
	}
	if c.SlowDelay == 0 {
		c.SlowDelay = 2 * time.Second
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.CallbackClient == nil {
		c.CallbackClient = &http.Client{Timeout: callbackTimeout}
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return nil
}

// tickInterval is how often the background loop acts on due events when
// nobody asks: callbacks must go out even if no client polls.
const tickInterval = 200 * time.Millisecond

// Server is the sandbox: an http.Handler speaking the service's wire format.
type Server struct {
	cfg    Config
	clock  Clock
	client *http.Client
	logf   func(format string, args ...any)

	mu       sync.Mutex
	idle     *sync.Cond // broadcast when a callback attempt ends
	st       *state
	store    *fileStore // nil keeps the state in memory
	inflight map[int64]bool
	closed   bool

	faultMu sync.Mutex
	faults  *randv2.Rand

	ctx       context.Context // cancelled by Close: ends callback attempts
	cancel    context.CancelFunc
	done      chan struct{}
	loop      sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// New makes a sandbox and starts its background loop; Close stops it.
func New(cfg Config) (*Server, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, clock: cfg.Clock, client: cfg.CallbackClient, logf: cfg.Logf,
		inflight: map[int64]bool{}, done: make(chan struct{})}
	s.idle = sync.NewCond(&s.mu)
	if cfg.StatePath != "" {
		store, err := openStore(cfg.StatePath)
		if err != nil {
			return nil, err
		}
		if err := s.open(store); err != nil {
			_ = store.close()
			return nil, err
		}
	} else {
		st, err := s.fresh()
		if err != nil {
			return nil, err
		}
		s.st = st
	}
	s.faults = randv2.New(randv2.NewPCG(uint64(s.st.Seed), 0xfa0175))
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.loop.Add(1)
	go s.run()
	return s, nil
}

// open loads the shared state file, or creates it.
func (s *Server) open(store *fileStore) error {
	if err := store.lockEx(); err != nil {
		return fmt.Errorf("sandbox state: lock: %w", err)
	}
	defer func() { _ = store.unlock() }()
	st, err := store.load(nil)
	if errors.Is(err, errUnreadable) {
		s.logf("%v", err)
	} else if err != nil {
		return err
	}
	if st == nil {
		if st, err = s.fresh(); err != nil {
			return err
		}
		if err := store.save(st); err != nil {
			return err
		}
	}
	s.st, s.store = st, store
	return nil
}

func (s *Server) fresh() (*state, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	seed := s.cfg.Seed
	for seed == 0 {
		seed = int64(binary.LittleEndian.Uint64(secret[:8]) >> 1)
		secret[0]++
	}
	return newState(seed, secret), nil
}

func (s *Server) run() {
	defer s.loop.Done()
	t := time.NewTicker(tickInterval)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.deliverDue()
		}
	}
}

var errClosed = errors.New("sandbox is closed")

// withState runs fn on the current state, advanced to now, and saves what
// changed. It holds the state lock (and the file lock) throughout.
func (s *Server) withState(fn func(st *state, now time.Time) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if s.store != nil {
		if err := s.store.lockEx(); err != nil {
			return fmt.Errorf("sandbox state: lock: %w", err)
		}
		defer func() { _ = s.store.unlock() }()
		st, err := s.store.load(s.st)
		switch {
		case errors.Is(err, errUnreadable):
			s.logf("%v", err)
			s.st.dirty = true // write ours over the damaged one
		case err != nil:
			return err
		case st != nil:
			s.st = st
		}
	}
	// The simulation never runs back. A wall clock set back (or a state
	// file written by a process whose clock was ahead) would otherwise
	// plan new tasks before events already simulated, where no event
	// reaches them: a task left queueing until some other task moved.
	now := s.clock.Now()
	if now.Before(s.st.Cursor) {
		now = s.st.Cursor
	}
	s.st.advance(now, s.cfg.MaxConcurrent)
	var err error
	if fn != nil {
		err = fn(s.st, now)
	}
	if s.st.dirty && s.store != nil {
		if serr := s.store.save(s.st); serr != nil {
			return errors.Join(err, serr)
		}
	}
	if s.store == nil {
		s.st.changed, s.st.dropped = nil, nil // nothing to save them to
	}
	s.st.dirty = false
	return err
}

// Advance acts on everything due at the clock's current time: state changes
// and callbacks, waiting until every callback attempt under way has ended.
// Tests call it after moving a FakeClock; a background loop calls it too.
func (s *Server) Advance() {
	s.deliverDue()
	s.mu.Lock()
	for len(s.inflight) > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

// Close stops the background loop and callback delivery; undelivered
// callbacks stay in the state for the next run. The state file needs no
// final save: every change was written when it happened.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		close(s.done)
		s.loop.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		for len(s.inflight) > 0 {
			s.idle.Wait()
		}
		s.closed = true
		if s.store != nil {
			s.closeErr = s.store.close()
		}
	})
	return s.closeErr
}

// Listen serves a new sandbox on addr ("" is 127.0.0.1 on a free port) until
// ctx ends or stop is called. It refuses addresses that are not loopback
// unless cfg.AllowRemote is set. baseURL is what clients take as the
// service's base URL.
func Listen(ctx context.Context, addr string, cfg Config) (baseURL string, srv *Server, stop func() error, err error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, nil, fmt.Errorf("sandbox address %q: %w", addr, err)
	}
	if !cfg.AllowRemote && !isLoopbackHost(host) {
		return "", nil, nil, fmt.Errorf("sandbox address %q is not loopback; the sandbox accepts any token, so it listens on this machine only unless remote access is allowed", addr)
	}
	srv, err = New(cfg)
	if err != nil {
		return "", nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close()
		return "", nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: log.New(logWriter(srv.logf), "", 0)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			srv.logf("sandbox: %v", err)
		}
	}()
	stopped := make(chan struct{})
	stop = sync.OnceValue(func() error {
		close(stopped)
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := hs.Shutdown(sctx)
		<-served
		return errors.Join(err, srv.Close())
	})
	go func() {
		select {
		case <-ctx.Done():
			_ = stop()
		case <-stopped:
		}
	}()
	return "http://" + ln.Addr().String(), srv, stop, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// logWriter routes net/http's own complaints to Logf instead of stderr.
type logWriter func(format string, args ...any)

func (w logWriter) Write(p []byte) (int, error) {
	w("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// reply writes one response, always with a trace id.
type reply struct {
	w     http.ResponseWriter
	trace string
}

func (rp *reply) json(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		rp.fail(internalError(err))
		return
	}
	rp.w.Header().Set("Content-Type", "application/json")
	rp.w.WriteHeader(status)
	_, _ = rp.w.Write(b)
}

// fail writes a rejection in the service's error body.
func (rp *reply) fail(e *api.Error) {
	if e.RetryAfter != "" {
		rp.w.Header().Set("Retry-After", e.RetryAfter)
	}
	rp.json(e.Status, api.ErrorBody{Code: e.Status, Reason: e.Reason, Message: e.Message,
		Metadata: api.ErrorMetadata{TraceID: rp.trace, Fields: e.Fields}})
}

func apiError(reason, msg string, fields ...string) *api.Error {
	return &api.Error{Status: api.ReasonStatus[reason], Reason: reason, Message: msg, Fields: fields}
}

func internalError(err error) *api.Error {
	return apiError(api.ReasonInternalServiceFailure, "sandbox failure: "+err.Error())
}

func notFound(path string) *api.Error {
	return apiError(api.ReasonNotFound, "no such path: "+path, "path")
}

// reasonMethodNotAllowed has no entry in the service's reason table; the
// service's gateway answers a wrong method with 405.
const reasonMethodNotAllowed = "MethodNotAllowed"

func (s *Server) answer(rp *reply, fn func(st *state, now time.Time) (any, *api.Error)) {
	var body any
	var e *api.Error
	err := s.withState(func(st *state, now time.Time) error {
		body, e = fn(st, now)
		return nil
	})
	switch {
	case err != nil:
		rp.fail(internalError(err))
	case e != nil:
		rp.fail(e)
	default:
		rp.json(http.StatusOK, body)
	}
}

// ServeHTTP serves the service's paths under /ent/v2 and the sandbox's own
// under /_sandbox. A trailing slash is ignored.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp := &reply{w: w, trace: newTraceID()}
	w.Header().Set(api.TraceHeader, rp.trace)
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	switch {
	case path == "/_sandbox" || strings.HasPrefix(path, "/_sandbox/"):
		s.serveSandbox(rp, r, strings.TrimPrefix(path, "/_sandbox"))
	case path == "/ent" || strings.HasPrefix(path, "/ent/"), path == "/tools" || strings.HasPrefix(path, "/tools/"):
		s.serveService(rp, r, path)
	default:
		rp.fail(notFound(r.URL.Path))
	}
}

// route is one matched path: the methods it takes and what serves it.
type route struct {
	method string
	serve  func()
}

func (s *Server) serveService(rp *reply, r *http.Request, path string) {
	if e := s.injectFault(r); e != nil {
		rp.fail(e)
		return
	}
	token, ok := tokenOf(r)
	if !ok {
		rp.fail(apiError(api.ReasonUnauthorized, "missing or malformed Authorization header; want Authorization: Token <API_KEY>", "Authorization"))
		return
	}
	rt, ok := s.match(rp, r, path, token)
	if !ok {
		rp.fail(notFound(r.URL.Path))
		return
	}
	if !slices.Contains(strings.Split(rt.method, ", "), r.Method) {
		rp.w.Header().Set("Allow", rt.method)
		rp.fail(&api.Error{Status: http.StatusMethodNotAllowed, Reason: reasonMethodNotAllowed,
			Message: "method " + r.Method + " is not allowed on " + r.URL.Path + "; use " + rt.method, Fields: []string{"method"}})
		return
	}
	rt.serve()
}

func (s *Server) match(rp *reply, r *http.Request, path, token string) (route, bool) {
	if rest, ok := strings.CutPrefix(path, "/tools/v2/files/uploads"); ok {
		return s.matchUploads(rp, r, rest)
	}
	rest, ok := strings.CutPrefix(path, "/ent/v2/")
	if !ok {
		return route{}, false
	}
	seg := strings.Split(rest, "/")
	create := func(op api.Operation) route {
		return route{http.MethodPost, func() { s.create(rp, r, op, token) }}
	}
	switch {
	case len(seg) == 1 && seg[0] == "credits":
		return route{http.MethodGet, func() { s.credits(rp, r) }}, true
	case len(seg) == 1 && seg[0] == "subjects":
		return route{"GET, POST", func() {
			if r.Method == http.MethodGet {
				s.listSubjects(rp, r)
			} else {
				s.createSubject(rp, r)
			}
		}}, true
	case len(seg) == 2 && seg[0] == "subjects":
		return route{http.MethodPut, func() { s.updateSubject(rp, r, seg[1]) }}, true
	case len(seg) == 1:
		op, err := api.ParseOperation(seg[0])
		if err != nil || op.IsOneClick() || string(op) != seg[0] {
			return route{}, false
		}
		return create(op), true
	case len(seg) == 2 && seg[0] == "one-click":
		op, err := api.ParseOperation(seg[1])
		if err != nil || !op.IsOneClick() || string(op) != seg[1] {
			return route{}, false
		}
		return create(op), true
	case len(seg) == 3 && seg[0] == "one-click" && seg[1] == string(api.OpGeneralOneClick):
		return route{http.MethodGet, func() { s.getJob(rp, r, seg[2]) }}, true
	case len(seg) == 4 && seg[0] == "one-click" && seg[1] == string(api.OpGeneralOneClick) && seg[3] == "edit":
		return route{http.MethodPost, func() { s.edit(rp, r, seg[2], token) }}, true
	case len(seg) == 4 && seg[0] == "one-click" && seg[1] == string(api.OpGeneralOneClick) && seg[3] == "compose":
		return route{http.MethodPost, func() { s.compose(rp, r, seg[2], token) }}, true
	case len(seg) == 3 && seg[0] == "tasks" && seg[2] == "creations":
		return route{http.MethodGet, func() { s.getTask(rp, r, seg[1]) }}, true
	case len(seg) == 3 && seg[0] == "tasks" && seg[2] == "cancel":
		return route{http.MethodPost, func() { s.cancelTask(rp, seg[1]) }}, true
	}
	return route{}, false
}

// matchUploads routes /tools/v2/files/uploads and .../{id}/finish.
func (s *Server) matchUploads(rp *reply, r *http.Request, rest string) (route, bool) {
	seg := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	switch {
	case rest == "":
		return route{http.MethodPost, func() { s.openUpload(rp, r) }}, true
	case len(seg) == 2 && seg[1] == "finish":
		return route{http.MethodPut, func() { s.finishUpload(rp, r, seg[0]) }}, true
	}
	return route{}, false
}

// tokenOf reads "Authorization: Token <key>", the scheme in any case.
func tokenOf(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Token") && tok != ""
}

func (s *Server) serveSandbox(rp *reply, r *http.Request, rest string) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case rest == "/tasks":
		if r.Method != http.MethodGet {
			rp.w.Header().Set("Allow", http.MethodGet)
			rp.fail(&api.Error{Status: http.StatusMethodNotAllowed, Reason: reasonMethodNotAllowed, Message: "method " + r.Method + " is not allowed; use GET", Fields: []string{"method"}})
			return
		}
		s.list(rp)
	case strings.HasPrefix(rest, "/uploads/"):
		if r.Method != http.MethodPut {
			rp.w.Header().Set("Allow", http.MethodPut)
			rp.fail(&api.Error{Status: http.StatusMethodNotAllowed, Reason: reasonMethodNotAllowed, Message: "method " + r.Method + " is not allowed; use PUT", Fields: []string{"method"}})
			return
		}
		s.putUpload(rp, r, strings.TrimPrefix(rest, "/uploads/"))
	case strings.HasPrefix(rest, "/files/"):
		if !get {
			rp.w.Header().Set("Allow", "GET, HEAD")
			rp.fail(&api.Error{Status: http.StatusMethodNotAllowed, Reason: reasonMethodNotAllowed, Message: "method " + r.Method + " is not allowed; use GET", Fields: []string{"method"}})
			return
		}
		s.serveFile(rp, r, strings.TrimPrefix(rest, "/files/"))
	default:
		rp.fail(notFound(r.URL.Path))
	}
}

// injectFault decides, per service request, whether to answer 429 or 500
// instead, and whether to answer late. The draws come from the seed, so a
// client's test sees the same faults run after run.
func (s *Server) injectFault(r *http.Request) *api.Error {
	c := s.cfg
	if c.Rate429 == 0 && c.Rate5xx == 0 && c.SlowRate == 0 {
		return nil
	}
	s.faultMu.Lock()
	kind, slow, hint, wait := s.faults.Float64(), s.faults.Float64(), s.faults.Float64(), s.faults.IntN(5)
	s.faultMu.Unlock()
	if slow < c.SlowRate {
		sl, ok := s.clock.(sleeper)
		if !ok {
			sl = realClock{}
		}
		if err := sl.Sleep(r.Context(), c.SlowDelay); err != nil {
			return apiError(api.ReasonCanceled, "request cancelled while delayed")
		}
	}
	switch {
	case kind < c.Rate429:
		e := apiError(api.ReasonTooManyRequests, "too many requests; slow down (sandbox fault injection)")
		if hint < 0.5 {
			e.RetryAfter = strconv.Itoa(1 + wait)
		}
		return e
	case kind < c.Rate429+c.Rate5xx:
		return apiError(api.ReasonInternalServiceFailure, "internal service failure (sandbox fault injection)")
	}
	return nil
}
