package studio

import (
	"errors"
	"fmt"

	"clapper/api"
	"clapper/track"
)

func (s *Studio) addSet(r *SetRun) {
	s.setsMu.Lock()
	defer s.setsMu.Unlock()
	if s.runs == nil {
		s.runs = map[int64]*SetRun{}
	}
	s.runs[r.SetID] = r
}

func (s *Studio) removeSet(r *SetRun) {
	s.setsMu.Lock()
	defer s.setsMu.Unlock()
	if s.runs[r.SetID] == r {
		delete(s.runs, r.SetID)
	}
}

// offerSets hands an event to every set running in the background.
func (s *Studio) offerSets(ev track.Event) {
	runs := s.runningSets()
	// A task that ends frees room at the service for every set, not only
	// its own.
	ends := ev.Kind == track.EventLost || ev.Kind == track.EventState && api.IsTerminal(ev.To)
	for _, r := range runs {
		r.offer(ev, ends)
	}
}

// setsAtService counts the tasks at the service of every set running in
// the background.
func (s *Studio) setsAtService() int {
	n := 0
	for _, r := range s.runningSets() {
		r.mu.Lock()
		n += len(r.inflight)
		r.mu.Unlock()
	}
	return n
}

// runningSets lists the sets running in the background.
func (s *Studio) runningSets() []*SetRun {
	s.setsMu.Lock()
	defer s.setsMu.Unlock()
	runs := make([]*SetRun, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	return runs
}

// StartSet runs a set in the background of a Started studio until its
// lines end or the studio closes (the TUI's variations). A set already
// running is refused. What the run says last is SetActivity's note.
func (s *Studio) StartSet(r *SetRun) error {
	s.setsMu.Lock()
	ctx := s.started
	_, running := s.runs[r.SetID]
	s.setsMu.Unlock()
	if ctx == nil {
		return errors.New("studio: StartSet needs a started studio")
	}
	if running {
		return fmt.Errorf("set %d is running already", r.SetID)
	}
	if err := r.resume(ctx); err != nil {
		return err
	}
	s.addSet(r) // seen running, its lines waiting, from now on
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := r.Run(ctx); err != nil && !errors.Is(err, ErrSetStopped) {
			r.note("the set stopped: %v", err)
		}
	}()
	return nil
}

// SetActivity is what a set running in the background is doing: the lines
// still waiting on our side for room at the service, and its last news.
// running is false when no run of the set is under way in this process.
type SetActivity struct {
	Running bool
	Waiting map[int]bool // line -> queued here, never sent yet
	Note    string
}

// SetActivity reports on set setID's run in this process, if any.
func (s *Studio) SetActivity(setID int64) SetActivity {
	s.setsMu.Lock()
	r := s.runs[setID]
	s.setsMu.Unlock()
	if r == nil {
		return SetActivity{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := SetActivity{Running: true, Waiting: map[int]bool{}, Note: r.lastNote}
	for _, q := range r.queue {
		a.Waiting[q.Line] = true
	}
	return a
}

// SetsWaiting counts the lines of the sets running in this process that
// wait on our side, never sent: quitting leaves them unsent.
func (s *Studio) SetsWaiting() int {
	n := 0
	for _, r := range s.runningSets() {
		r.mu.Lock()
		n += len(r.queue)
		r.mu.Unlock()
	}
	return n
}
