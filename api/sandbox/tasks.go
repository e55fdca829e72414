package sandbox

import (
	"net/http"
	"time"

	"clapper/api"
)

// getTask answers GET /tasks/{id}/creations for any id the sandbox made:
// tasks, one-click music videos, multi-scene jobs and their sub-jobs.
func (s *Server) getTask(rp *reply, r *http.Request, id string) {
	o := origin(r)
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		u := st.byID[id]
		if u == nil {
			return nil, apiError(api.ReasonTaskNotFound, "task not found: id "+id, "id")
		}
		return result(st, u, signer{secret: st.Secret, origin: o, now: now}, ""), nil
	})
}

// cancel cancels a task that has not started: created or queueing, off-peak
// or not. The task then reads failed with err_code UserCancelled and its
// credits are returned. Multi-scene jobs and their parts cannot be
// cancelled. A body, if any, is ignored: the id is in the path.
func (s *Server) cancelTask(rp *reply, id string) {
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		u := st.byID[id]
		switch {
		case u == nil:
			return nil, apiError(api.ReasonTaskNotFound, "task not found: id "+id, "id")
		case u.Kind != kindTask:
			return nil, apiError(api.ReasonBadRequest, "multi-scene jobs can not be cancelled", "id")
		case u.State != api.StateCreated && u.State != api.StateQueueing:
			return nil, apiError(api.ReasonBadRequest, "task state is "+u.State+", can not cancel", "id")
		}
		st.fail(u, now, api.ReasonUserCancelled, "cancelled by the user; credits returned")
		// The cancelled task may have held back later ones already due to
		// start (the queue is strict): admit them now, not at the next event.
		st.admit(now, s.cfg.MaxConcurrent)
		return struct{}{}, nil
	})
}

// listEntry is one line of GET /_sandbox/tasks.
type listEntry struct {
	ID        string        `json:"id"`
	Operation api.Operation `json:"operation"`
	Kind      string        `json:"kind"`
	Parent    string        `json:"parent,omitempty"`
	State     string        `json:"state"`
	ErrCode   string        `json:"err_code,omitempty"`
	Credits   int           `json:"credits"`
	// Seconds is the result's length where the request sets it.
	Seconds   float64 `json:"seconds,omitempty"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	// When the unit entered queueing, processing and its final state, so a
	// client's tests can measure how late they learned of each change.
	QueuedAt  string `json:"queued_at,omitempty"`
	StartedAt string `json:"started_at,omitempty"`
	EndedAt   string `json:"ended_at,omitempty"`
}

// list answers GET /_sandbox/tasks: every unit, oldest first.
func (s *Server) list(rp *reply) {
	s.answer(rp, func(st *state, _ time.Time) (any, *api.Error) {
		st.compact()
		out := make([]listEntry, 0, len(st.Units))
		for _, u := range st.Units {
			credits := u.reportedCredits()
			if u.Kind == kindJob {
				credits = jobCredits(st, u)
			}
			e := listEntry{
				ID: u.ID, Operation: u.Op, Kind: u.Kind, Parent: u.Parent, State: u.State,
				ErrCode: u.ErrCode, Credits: credits, Seconds: u.Seconds,
				CreatedAt: stamp(u.CreatedAt), UpdatedAt: stamp(u.UpdatedAt),
			}
			if u.Queued && u.State != api.StateCreated && !u.QueueAt.IsZero() {
				e.QueuedAt = stamp(u.QueueAt)
			}
			if !u.StartedAt.IsZero() {
				e.StartedAt = stamp(u.StartedAt)
			}
			if u.terminal() {
				e.EndedAt = stamp(u.UpdatedAt)
			}
			out = append(out, e)
		}
		return out, nil
	})
}
