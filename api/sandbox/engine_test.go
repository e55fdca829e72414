package sandbox

import (
	"fmt"
	"testing"

	"clapper/api"
)

// Tasks cancelled behind a queue whose head never moves are not kept by the
// queue: its entries are swept once they outnumber what still waits.
func TestCancelledTasksDoNotPileUpInTheQueue(t *testing.T) {
	st := newState(1, nil)
	st.add(&unit{ID: "head", Seq: 1, Kind: kindTask, State: api.StateCreated, Queued: true, QueueAt: t0})
	for i := range 10 * sweepMin {
		u := &unit{ID: fmt.Sprint(i), Seq: int64(i + 2), Kind: kindTask, State: api.StateCreated, Queued: true, QueueAt: t0}
		st.add(u)
		st.fail(u, t0, api.ReasonUserCancelled, "cancelled")
	}
	if n := st.queue.Len(); n > 2+sweepMin {
		t.Errorf("the queue holds %d entries for one task waiting", n)
	}
}
