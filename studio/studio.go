package studio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
	"clapper/scenes"
	"clapper/track"
)

// SandboxNotice is what clapper says whenever results are simulated.
const SandboxNotice = "sandbox — results are simulated (no API key configured)"

// Options tune a studio for one front end; the zero value is the TUI's: it
// follows tasks, receives callbacks when configured, and saves results in
// the configured folders.
type Options struct {
	// SendOnly is for a command that does not stay to follow what it sends
	// (create without --wait, resubmit, get): no callback receiver is
	// started and tasks are sent without a callback URL.
	SendOnly bool
	// DownloadDir saves every result in this folder (a command's
	// --download-dir), over Config.DownloadDir and the folders by media.
	DownloadDir string
	// NoEvents: the front end reads no Events (an MCP server waits on
	// tasks with Await), so the relay hands none there.
	NoEvents bool
	// NoDownload leaves results unsaved as tasks succeed (a command's
	// --no-download), whatever the auto-download setting.
	NoDownload bool
	// Watcher overrides the watcher's schedule and clock for tests (the
	// budget comes from Config.RequestBudget unless set here).
	Watcher track.WatcherOptions
	// Sandbox overrides the embedded sandbox's settings (seed, clock).
	Sandbox *sandbox.Config
	// Clock stamps history writes (tests fix it); nil is the wall clock.
	Clock func() time.Time
	// ChangeInterval is how often the history is checked for commits of
	// other processes (default 500 ms: a task created in another terminal
	// shows within a second).
	ChangeInterval time.Duration
	// History adds options to the history store's (a benchmark counts its
	// statements through a wrapped driver).
	History []history.Option
	// Origin is recorded with every task this studio sends: the front end
	// using it (tui, cli, mcp).
	Origin record.Origin
	// SentBy is recorded with every task as who sent it (the config's
	// Machine() when "").
	SentBy string
}

// Studio is one backend, running: open it, Start its background work, Close
// it. Its fields are ready after Open.
type Studio struct {
	Config Config

	client     *api.Client
	store      record.Store
	tracker    *track.Tracker
	watcher    *track.Watcher
	downloader *track.Downloader

	opts       Options
	sentBy     string // who sends from this studio: Options.SentBy
	stopSandbx func()
	// schedule is the watcher's, paced to the backend's speed.
	schedule *track.Schedule
	stopRecv func()

	// events go to the TUI (Start); inbox carries what the downloader and
	// the set runner report to the relay; subs are the Await streams.
	events  chan track.Event
	inbox   chan track.Event
	changes chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	subsMu  sync.Mutex
	subs    map[*subscription]struct{}
	// running is the context of the relay, set once by Start or Follow.
	running context.Context
	// life is Open's context, ended by Close: what the studio does for no
	// caller of its own (a price's look-up, a command's background work)
	// runs on it.
	life    context.Context
	endLife context.CancelFunc

	// previewMu makes Preview fetch a picture once (see Preview).
	previewMu sync.Mutex

	// runs are the sets running in the background (StartSet), by set id;
	// started is Start's context, which they run under.
	setsMu  sync.Mutex
	runs    map[int64]*SetRun
	started context.Context
	// setSendMu makes the background sets send one at a time (SetRun.sendNext).
	setSendMu sync.Mutex
}

// connect returns a client for the configured service, or for the embedded
// sandbox when no API key is configured; stop ends the sandbox.
func connect(ctx context.Context, cfg Config, sb *sandbox.Config) (client *api.Client, stop func(), err error) {
	if cfg.Live() {
		c, err := api.NewClient(cfg.BaseURL, cfg.APIKey, api.WithTimeout(cfg.Timeout))
		if err != nil {
			return nil, nil, err
		}
		return c, func() {}, nil
	}
	sc := sandbox.Config{}
	if sb != nil {
		sc = *sb
	}
	if sc.StatePath == "" {
		sc.StatePath = cfg.SandboxStatePath()
	}
	if sc.Speed == 0 {
		sc.Speed = cfg.SandboxSpeed
	}
	base, stopSandbox, err := listenSandbox(ctx, cfg, sc)
	if err != nil {
		return nil, nil, fmt.Errorf("start the embedded sandbox: %w", err)
	}
	c, err := api.NewClient(base, sandbox.EmbeddedToken, api.WithTimeout(cfg.Timeout))
	if err != nil {
		stopSandbox()
		return nil, nil, err
	}
	return c, func() { stopSandbox() }, nil
}

// sandboxSpeed is how fast the backend runs against real time: the
// embedded sandbox's speed, 1 for a live service.
func sandboxSpeed(cfg Config, sb *sandbox.Config) float64 {
	if cfg.Live() {
		return 1
	}
	if sb != nil && sb.Speed != 0 {
		return sb.Speed
	}
	return max(cfg.SandboxSpeed, 1)
}

// OpenHistory opens the history of the configured backend.
func OpenHistory(ctx context.Context, cfg Config) (record.Store, error) {
	return openHistory(ctx, cfg)
}

// openHistory opens the team's database when the configuration names one,
// else the history file of the backend.
func openHistory(ctx context.Context, cfg Config, opts ...history.Option) (*history.Store, error) {
	if cfg.Team() {
		return history.OpenPostgres(ctx, cfg.HistoryURL, cfg.TeamMachinePath(), append([]history.Option{history.WithMachine(cfg.Machine())}, opts...)...)
	}
	return history.Open(cfg.HistoryPath(), opts...)
}

// listenCallbacks starts the callback receiver when one is configured; stop
// is nil when none is.
func listenCallbacks(cfg Config, client *api.Client, w *track.Watcher) (stop func(), err error) {
	if cfg.CallbackListen == "" {
		return nil, nil
	}
	// The receiver's own errors go to a file: the terminal belongs to the
	// TUI, and a log nobody can open would hide an attack.
	logFile, err := os.OpenFile(cfg.CallbackLogPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("callbacks: %w", err)
	}
	srv, _, err := track.ListenCallbacks(cfg.CallbackListen, &track.Receiver{Token: client.APIKey(), Watcher: w}, track.CallbackLimits{ErrorLog: logFile})
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("callbacks: %w", err)
	}
	return func() { srv.Close(); logFile.Close() }, nil
}

// downloadDirs names the folder of each operation's results: the one
// folder given for this studio, else the configured one, else by media.
func downloadDirs(cfg Config, dir string) func(api.Operation) string {
	if dir == "" {
		dir = cfg.DownloadDir
	}
	if dir != "" {
		return func(api.Operation) string { return dir }
	}
	return track.DefaultDirs(cfg.DataDir)
}

// Open connects to the backend and opens its history. Nothing runs in the
// background until Start.
func Open(ctx context.Context, cfg Config, o Options) (*Studio, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	s := &Studio{Config: cfg, opts: o, events: make(chan track.Event, 256), inbox: make(chan track.Event, 64), changes: make(chan struct{}, 1)}
	s.life, s.endLife = context.WithCancel(ctx)
	var err error
	if s.client, s.stopSandbx, err = connect(ctx, cfg, o.Sandbox); err != nil {
		return nil, err
	}
	storeOpts := append([]history.Option(nil), o.History...)
	if o.Clock != nil {
		storeOpts = append(storeOpts, history.WithClock(o.Clock))
	}
	s.sentBy = o.SentBy
	if s.sentBy == "" {
		s.sentBy = cfg.Machine()
	}
	storeOpts = append(storeOpts, history.WithSender(cfg.Account(), s.sentBy))
	if s.store, err = openHistory(ctx, cfg, storeOpts...); err != nil {
		s.stopSandbx()
		return nil, err
	}
	wo := o.Watcher
	if wo.RequestsPerSecond == 0 {
		wo.RequestsPerSecond = cfg.RequestBudget
	}
	if wo.Schedule == nil {
		// The embedded sandbox tells the watcher its speed: a task done
		// in seconds is read in seconds.
		wo.Schedule = track.DefaultSchedule()
		wo.Schedule.Speed = sandboxSpeed(cfg, o.Sandbox)
	}
	s.schedule = wo.Schedule
	if cfg.Team() && wo.AccountRead == nil {
		// The poller's reads of the counts, every few seconds while tasks
		// may end, keep every machine's header as fresh as its own.
		wo.AccountRead = s.keepAccountRead
	}
	s.watcher = track.NewWatcher(s.client, s.store, wo)
	s.downloader = &track.Downloader{Store: s.store, Client: s.client, DirFor: downloadDirs(cfg, o.DownloadDir), Clock: wo.Clock}
	s.tracker = &track.Tracker{Client: s.client, Store: s.store, Clock: wo.Clock, Origin: o.Origin, Budget: s.budget}
	if o.SendOnly {
		return s, nil
	}
	// Listen before anything is sent: a receiver that cannot start must not
	// leave a task that asks for callbacks nobody takes.
	if s.stopRecv, err = listenCallbacks(cfg, s.client, s.watcher); err != nil {
		s.Close()
		return nil, err
	}
	if s.stopRecv != nil {
		s.tracker.CallbackURL = cfg.CallbackURL
	}
	return s, nil
}

// Sandbox reports whether results are simulated.
func (s *Studio) Sandbox() bool { return !s.Config.Live() }

// Start follows every task in flight, downloads what is queued, and watches
// the history for other processes' commits (following the tasks they send),
// until Close. It returns at once: the tasks in flight are loaded in the
// background (20,000 of them take a while), so the first frame never waits
// for them; the screens read their rows from history anyway. A failed load
// is reported on Events and retried on the next change to the history.
func (s *Studio) Start(ctx context.Context) error {
	s.subsMu.Lock()
	following := s.running != nil
	s.subsMu.Unlock()
	if following {
		return errors.New("studio: Start after Follow; a studio runs one of them")
	}
	ctx = s.run(ctx, true)
	every := s.opts.ChangeInterval
	if every == 0 {
		every = 500 * time.Millisecond
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.watcher.Load(ctx); err != nil && ctx.Err() == nil {
			s.publish(track.Event{Kind: track.EventPollFailed, Err: fmt.Errorf("follow the tasks in flight: %w", err), At: s.Now()})
		}
		s.watcher.Run(ctx)
	}()
	if s.Config.Team() {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if _, err := s.CatchUpSaves(ctx); err != nil && ctx.Err() == nil {
				s.publish(track.Event{Kind: track.EventPollFailed, Err: err, At: s.Now()})
			}
		}()
	}
	go func() {
		defer s.wg.Done()
		s.store.WatchChanges(ctx, every, record.ChangeWatch{
			Changed: func() {
				// Another process (a `clapper create` in another terminal,
				// a colleague's machine) may have sent a task: follow it
				// too. Load skips what is followed.
				s.watcher.Load(ctx)
				select {
				case s.changes <- struct{}{}:
				default: // one pending signal says it all
				}
			},
			// The account's poller resigned: claim the lease now rather
			// than when it would have lapsed.
			PollerFreed: s.watcher.ClaimSoon,
		})
	}()
	return nil
}

// Scenes is the multi-scene editor's work over this backend. A studio that
// follows tasks follows the jobs it edits and composes too; a SendOnly one
// leaves them to the next clapper that follows.
func (s *Studio) Scenes() *scenes.Service {
	svc := &scenes.Service{Client: s.client, Store: s.store, Downloader: s.downloader, DirFor: s.downloader.DirFor}
	if !s.opts.SendOnly {
		svc.Watcher = s.watcher
	}
	if sc := s.opts.Watcher.Schedule; sc != nil {
		svc.NudgeEvery = sc.MinInterval // a test's fast schedule
	}
	if s.Sandbox() {
		svc.EditCredits = func(seconds int) int64 { return s.ScenePrice(true, seconds).Credits }
	}
	return svc
}

// DownloadWithCovers is Download and the covers of the results, for a
// client that shows a video by its cover (an agent's chat).
func (s *Studio) DownloadWithCovers(ctx context.Context, t record.Task) error {
	if err := s.Download(ctx, t); err != nil {
		return err
	}
	res := &api.TaskResult{ID: t.TaskID, State: t.State}
	for _, c := range t.Creations {
		res.Creations = append(res.Creations, api.Creation{URL: c.URL, CoverURL: c.CoverURL})
	}
	return s.downloader.QueueCovers(ctx, t.TaskID, t.Operation, t.CreatedAt, res)
}

// Events delivers every change the watcher and downloader report, already
// recorded in history, to the front end that Started the studio.
func (s *Studio) Events() <-chan track.Event { return s.events }

// Changes signals that another process committed to the history (this
// process's own writes arrive as Events instead; see history.ChangeProbe).
func (s *Studio) Changes() <-chan struct{} { return s.changes }

// Close stops the background work and releases the backend.
func (s *Studio) Close() error {
	if s.endLife != nil {
		s.endLife()
	}
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	if s.stopRecv != nil {
		s.stopRecv()
	}
	var err error
	if s.store != nil {
		err = s.store.Close()
	}
	if s.stopSandbx != nil {
		s.stopSandbx()
	}
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
	return err
}

// IsUsage reports whether err is a configuration the user must change.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}

// Record hands the front ends the record's verbs (queries and writes of
// the history, record.Store), never the storage type behind them: the
// SQLite history today, a team's PostgreSQL tomorrow.
func (s *Studio) Record() record.Store { return s.store }

// HistoryReach is how the history is reached now (a team's database may be
// out of reach for a while; nothing is lost meanwhile, and what changed is
// caught up when it is back).
func (s *Studio) HistoryReach() record.Reach { return s.store.Reach() }
