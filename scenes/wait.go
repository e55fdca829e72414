package scenes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// Wait follows the job with the service's watcher until version id ends,
// and returns the version as history recorded it. The watcher must be
// running (Run); Wait reads its events, so nothing else may. changed, when
// set, hears each state the version reaches, and each failed read.
func (s *Service) Wait(ctx context.Context, jobID, id string, changed func(v record.SubJob, readErr error)) (record.SubJob, error) {
	if s.Watcher == nil {
		return record.SubJob{}, errors.New("scenes: Wait needs a watcher")
	}
	last := ""
	every := s.NudgeEvery
	if every <= 0 {
		every = NudgeInterval
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		j, err := s.Store.Job(ctx, jobID)
		if err != nil {
			return record.SubJob{}, err
		}
		_, v, ok := Find(j, id)
		if ok && v.State != last {
			last = v.State
			if changed != nil {
				changed(v, nil)
			}
		}
		if ok && api.IsTerminal(v.State) {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-tick.C:
			s.Nudge(jobID)
		case ev := <-s.Watcher.Events():
			if ev.TaskID != jobID {
				continue
			}
			switch ev.Kind {
			case track.EventLost:
				return v, fmt.Errorf("the service does not know job %s (%w); it is no longer followed", jobID, ev.Err)
			case track.EventPollFailed:
				if changed != nil {
					changed(v, ev.Err)
				}
			}
		}
	}
}
