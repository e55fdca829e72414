package studio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// The one event loop. Whether a front end stays for the whole session (the
// TUI, Start) or for one command (create --wait, watch, batch, an agent's
// wait_task: Follow), one relay reads what the watcher, the downloader and
// the set runner report, saves the results of a task that succeeded (the
// one download policy, SaveResults), hands each event to the running sets
// and to every Await stream, and, in a Started studio, to Events.

// run starts the relay once, under a context Close cancels, and returns
// that context; with it the downloader for the TUI (Start then loads and
// runs the watcher) or the watcher's reads for a command. tui makes Events
// carry every event and lets StartSet run sets in the background.
func (s *Studio) run(ctx context.Context, tui bool) context.Context {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	if s.running != nil {
		return s.running
	}
	if !tui {
		// A command's call may end before the studio does (a set run, one
		// wait): the background lives as long as the studio.
		ctx = s.life
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.running = ctx
	if tui {
		s.setsMu.Lock()
		s.started = ctx
		s.setsMu.Unlock()
	}
	// Downloads report to the relay, never back through the watcher's
	// stream: a full stream during Close would block them for ever.
	s.downloader.Emit = s.publish
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.relay(ctx, tui) }()
	if tui {
		go func() { defer s.wg.Done(); s.downloader.Run(ctx) }()
	} else {
		// A command fetches what it queued itself, in Settle, and says
		// what it saved; what it leaves, the next clapper resumes.
		go func() { defer s.wg.Done(); s.watcher.Run(ctx) }()
	}
	if s.Config.Team() && s.Config.Live() {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.readAccountWhilePolling(ctx) }()
	}
	return ctx
}

// Follow runs the backend for a command until Close: the watcher reads the
// tasks it is given (Await, a set), the results of a task that succeeds
// are queued to be saved (unless Options.NoDownload or auto-download is
// off) and fetched by Settle, and nothing of what history holds in flight
// is loaded. A studio runs Follow or Start; Follow after Start, or twice,
// changes nothing.
func (s *Studio) Follow(ctx context.Context) { s.run(ctx, false) }

// publish hands the relay an event of the downloader or the set runner. It
// never blocks a stopping studio.
func (s *Studio) publish(e track.Event) {
	s.subsMu.Lock()
	ctx := s.running
	s.subsMu.Unlock()
	if ctx == nil {
		return // nothing relays: a command that only sends
	}
	select {
	case s.inbox <- e:
	case <-ctx.Done():
	}
}

// relay is the one reader of the backend's events.
func (s *Studio) relay(ctx context.Context, tui bool) {
	for {
		var ev track.Event
		select {
		case <-ctx.Done():
			return
		case ev = <-s.watcher.Events():
		case ev = <-s.inbox:
		}
		if ev.Kind == track.EventState && ev.To == api.StateSuccess {
			var err error
			if s.savesOnSuccess() {
				err = s.saveEvent(ctx, ev)
			} else {
				err = s.leaveUnsaved(ctx, ev.TaskID)
			}
			if err != nil {
				s.deliver(ctx, tui, track.Event{Kind: track.EventDownload, TaskID: ev.TaskID, Operation: ev.Operation, Err: err, At: s.Now()})
			}
		}
		s.offerSets(ev)
		if !s.deliver(ctx, tui, ev) {
			return
		}
	}
}

// savesOnSuccess: results are saved as their task succeeds.
func (s *Studio) savesOnSuccess() bool { return s.Config.AutoDownload && !s.opts.NoDownload }

// deliver hands ev to every Await stream that wants it and, in a Started
// studio, to Events; false when the studio stops meanwhile.
func (s *Studio) deliver(ctx context.Context, tui bool, ev track.Event) bool {
	s.subsMu.Lock()
	var to []*subscription
	for sub := range s.subs {
		if sub.taskID == "" || sub.taskID == ev.TaskID {
			to = append(to, sub)
		}
	}
	s.subsMu.Unlock()
	for _, sub := range to {
		sub.send(ctx, ev)
	}
	if !tui || s.opts.NoEvents {
		return true
	}
	select {
	case s.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// subscription is one Await stream. mu makes a send and the close of the
// stream exclusive: the relay never writes to a closed channel.
type subscription struct {
	taskID string // "" for every task
	ch     chan Event
	done   <-chan struct{}
	mu     sync.Mutex
	ended  bool
}

// send delivers ev unless the stream's reader left; a terminal state or a
// lost task ends a one-task stream.
func (sub *subscription) send(ctx context.Context, ev Event) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.ended {
		return
	}
	if ev.Kind == track.EventDownload {
		// Progress is best effort: a reader busy saving files (clapper
		// watch, in Settle) must not stall the relay, whose inbox the
		// very downloads it waits for report to.
		select {
		case sub.ch <- ev:
		default:
		}
		return
	}
	select {
	case sub.ch <- ev:
	case <-sub.done:
		return
	case <-ctx.Done():
		return
	}
	if sub.taskID != "" && (ev.Kind == track.EventLost || ev.Kind == track.EventState && api.IsTerminal(ev.To)) {
		sub.ended = true
		close(sub.ch)
	}
}

// end closes the stream (its reader left, or the studio stopped).
func (sub *subscription) end() {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if !sub.ended {
		sub.ended = true
		close(sub.ch)
	}
}

// Await follows task t until it ends: the stream carries every event of
// the task (state changes, failed reads, pauses, downloads of its results)
// and closes after its final state or its loss, or when ctx ends. The
// studio Follows if it was not running; a task another clapper sent and
// left is followed from here.
func (s *Studio) Await(ctx context.Context, t record.Task) <-chan Event {
	sub := s.subscribe(ctx, t.TaskID)
	s.Track(t)
	return sub
}

// Track makes sure task t is followed and read soon: a task another
// clapper sent and left is followed from here.
func (s *Studio) Track(t record.Task) {
	if !s.watcher.Wake(t.TaskID) {
		s.watcher.Watch(t.TaskID, t.Operation, t.Model, t.State, t.CreatedAt)
	}
}

// AwaitAll is every event of every task the studio follows, until ctx
// ends (clapper watch).
func (s *Studio) AwaitAll(ctx context.Context) <-chan Event { return s.subscribe(ctx, "") }

func (s *Studio) subscribe(ctx context.Context, taskID string) <-chan Event {
	ctx, cancel := context.WithCancel(ctx)
	sub := &subscription{taskID: taskID, ch: make(chan Event, 16), done: ctx.Done()}
	s.subsMu.Lock()
	if s.subs == nil {
		s.subs = map[*subscription]struct{}{}
	}
	s.subs[sub] = struct{}{} // before the relay runs: no event slips by
	s.subsMu.Unlock()
	running := s.run(ctx, false)
	stopRun := context.AfterFunc(running, cancel) // the studio stopped
	context.AfterFunc(ctx, func() {
		stopRun()
		s.subsMu.Lock()
		delete(s.subs, sub)
		s.subsMu.Unlock()
		sub.end() // waits for a send under way: it gives up on done
	})
	return sub.ch
}

// SaveResults queues the results of task taskID to be saved: the one
// download policy of every front end. Files are named by the task's
// creation time in history (so the TUI, clapper watch and an agent save a
// task under one name), in the folder of its media or the one configured.
// res is the result to save; nil saves what history holds of the task.
// A multi-scene job's composed video is saved from its signed URL.
func (s *Studio) SaveResults(ctx context.Context, taskID string, res *api.TaskResult) error {
	t, err := s.store.TaskByID(ctx, taskID)
	if err != nil {
		return fmt.Errorf("save the results of task %s: %w", taskID, err)
	}
	if res == nil {
		res = resultOf(t)
	}
	if res == nil || len(res.Creations) == 0 {
		return fmt.Errorf("task %s has no result to download yet", taskID)
	}
	return s.downloader.QueueResults(ctx, t.TaskID, t.Operation, t.CreatedAt, res)
}

// SentHere reports whether a task was sent from this copy of clapper: every
// task of a history of its own; on a team's database, the tasks recorded as
// sent by this copy. A teammate's task is saved and announced on the
// teammate's machine; here it only shows in the lists.
func (s *Studio) SentHere(t record.Task) bool { return !s.Config.Team() || t.SentBy == s.sentBy }

// saveEvent saves the results a success event carries. In a team's
// history, only those of the tasks sent from this copy of clapper: every
// copy hears of every task's success, and a teammate's result saved on
// each machine at once would fill every disk with the team's work (the
// detail says where it was saved, and d saves it here too).
func (s *Studio) saveEvent(ctx context.Context, ev track.Event) error {
	if s.Config.Team() {
		t, err := s.store.TaskByID(ctx, ev.TaskID)
		if err != nil {
			return fmt.Errorf("save the results of task %s: %w", ev.TaskID, err)
		}
		if !s.SentHere(t) {
			return nil
		}
	}
	res := ev.Result
	if j := ev.Job; j != nil && j.SignedURL != "" {
		// The composed video: its signed URL lasts under 3 minutes, so now.
		res = &api.TaskResult{ID: ev.TaskID, State: ev.To, Creations: []api.Creation{{URL: j.SignedURL}}}
	}
	if res == nil || len(res.Creations) == 0 {
		return nil
	}
	return s.SaveResults(ctx, ev.TaskID, res)
}

// leaveUnsaved records, in a team's history, that this copy saw its task
// succeed and left the results unsaved by choice (auto-download off,
// --no-download): CatchUpSaves on the next start does not save them.
func (s *Studio) leaveUnsaved(ctx context.Context, taskID string) error {
	if !s.Config.Team() {
		return nil
	}
	t, err := s.store.TaskByID(ctx, taskID)
	if errors.Is(err, record.ErrNotFound) || err == nil && !s.SentHere(t) {
		return nil // not a task of this copy's to save
	}
	if err == nil {
		err = s.store.LeaveUnsaved(ctx, taskID)
	}
	if err != nil {
		return fmt.Errorf("task %s's results left unsaved: %w", taskID, err)
	}
	return nil
}

// CatchUpSaves queues the saves of the results of this copy's tasks that
// ended while it was closed, when it saves results as tasks succeed: in a
// team's history, a teammate's poller may read the end of a task sent
// here, and the copy that sent it hears of it only on its next start. It
// returns their task ids; a command fetches them with Settle, a started
// studio's downloader at once.
func (s *Studio) CatchUpSaves(ctx context.Context) ([]string, error) {
	if !s.savesOnSuccess() {
		return nil, nil
	}
	ids, err := s.store.UnsavedSuccesses(ctx, s.sentBy, s.Now())
	if err != nil {
		return nil, fmt.Errorf("the results of tasks that ended while clapper was closed: %w", err)
	}
	var queued []string
	for _, id := range ids {
		if err := s.SaveResults(ctx, id, nil); err != nil {
			return queued, err
		}
		queued = append(queued, id)
	}
	return queued, nil
}

// resultOf is what history holds of a finished task's results.
func resultOf(t record.Task) *api.TaskResult {
	if len(t.Creations) == 0 {
		return nil
	}
	res := &api.TaskResult{ID: t.TaskID, State: t.State}
	for _, c := range t.Creations {
		res.Creations = append(res.Creations, api.Creation{URL: c.URL, CoverURL: c.CoverURL})
	}
	return res
}

// Download saves a finished task's results now (the detail view's
// "download" action), whatever the auto-download setting.
func (s *Studio) Download(ctx context.Context, t record.Task) error {
	if len(t.Creations) == 0 {
		return fmt.Errorf("task %s has no result to download yet", t.TaskID)
	}
	return s.SaveResults(ctx, t.TaskID, resultOf(t))
}

// Settle waits until every queued result of task taskID is saved or has
// failed, fetching them in this process when no other clapper is (a file
// another one fetches is waited for, not fetched twice).
func (s *Studio) Settle(ctx context.Context, taskID string) ([]record.Download, error) {
	return s.downloader.Settle(ctx, taskID)
}

// FollowInFlight follows every task history holds in flight (clapper
// watch) and says how many are followed.
func (s *Studio) FollowInFlight(ctx context.Context) (int, error) {
	if err := s.watcher.Load(ctx); err != nil {
		return 0, err
	}
	return s.watcher.Watching(), nil
}

// InterruptedDownloads are the downloads a stopped or killed clapper left
// unfinished, or queued and never started.
func (s *Studio) InterruptedDownloads(ctx context.Context) ([]record.Download, error) {
	return s.downloader.Interrupted(ctx)
}

// Watching is how many tasks this studio follows now.
func (s *Studio) Watching() int { return s.watcher.Watching() }

// Poll reads every followed task that is due now, once, and returns when
// the next one is due (a test's, or a script's, manual tick of a studio
// that was not started).
func (s *Studio) Poll(ctx context.Context) time.Time { return s.watcher.Step(ctx) }

// Service is the service's client, for reads that record nothing.
func (s *Studio) Service() *api.Client { return s.client }
