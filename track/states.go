package track

import (
	"time"

	"clapper/api"
	"clapper/record"
)

// settled reports whether a task in this state will change no more.
func settled(state string) bool { return api.IsTerminal(state) }

func updateFrom(r *api.TaskResult, now time.Time) record.Update {
	u := record.Update{State: r.State, ErrCode: r.ErrCode, Credits: int64(r.Credits), KeepCredits: !r.CreditsSent, Raw: r.Raw, ObservedAt: now}
	if r.Progress != nil {
		p := int64(*r.Progress)
		u.Progress = &p
	}
	if len(r.Creations) > 0 {
		u.Creations = record.CreationsFrom(r.Creations, now.Add(URLValidity(r)))
	}
	return u
}

// URLValidity is how long result URLs of a read stay valid: 24 hours, one
// hour for trending-replicate (whose results report progress).
func URLValidity(r *api.TaskResult) time.Duration {
	if r.Progress != nil {
		return time.Hour
	}
	return 24 * time.Hour
}

// jobState is a multi-scene job's state as the task list shows it.
func jobState(j *api.OneClickJob) string {
	if j.State == "" {
		return api.StateCreated
	}
	return j.State
}

// jobBusy reports whether any scene or composition of a job is still being
// made (after an edit or a recomposition the job itself may read success).
func jobBusy(j *api.OneClickJob) bool {
	for _, rec := range j.JobRecords {
		if n := len(rec.Jobs); n > 0 && !api.IsTerminal(rec.Jobs[n-1].State) {
			return true
		}
	}
	return false
}

// taskHeap orders followed tasks by when they are due.
type taskHeap []*watched

func (h taskHeap) Len() int { return len(h) }

func (h taskHeap) Less(i, j int) bool { return h[i].next.Before(h[j].next) }

func (h taskHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *taskHeap) Push(x any) {
	t := x.(*watched)
	t.index = len(*h)
	*h = append(*h, t)
}

func (h *taskHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}
