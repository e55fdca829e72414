package sandbox

import (
	"container/heap"
	"slices"
	"time"
)

// entry files a unit under a time: when its next event is due, or when it
// became ready to start.
type entry struct {
	at  time.Time
	seq int64 // the unit's, here so that ordering reads no unit
	u   *unit
}

// schedule is a min-heap of entries, earliest first and, at one time, in
// submission order. Entries are not taken out when their unit moves on: that
// would need each unit to know its place in every heap. One that no longer
// holds is dropped when it reaches the top, and all of them are whenever the
// heap has doubled since the last sweep, so that tasks cancelled deep in a
// queue, or finished before their window closed, are not kept alive by it
// after they are forgotten.
type schedule struct {
	entries []entry
	holds   func(entry) bool
	swept   int // entries left by the last sweep
	// loading gathers entries unordered for loaded to order at once:
	// re-indexing a whole state, as after another process's changes, costs
	// half as much as pushing them one by one.
	loading bool
}

// sweepMin keeps small heaps from being swept at every few pushes.
const sweepMin = 1024

func loadSchedule(holds func(entry) bool) schedule { return schedule{holds: holds, loading: true} }

func (s *schedule) loaded() {
	heap.Init(s)
	s.swept, s.loading = len(s.entries), false
}

func (s *schedule) Len() int { return len(s.entries) }

func (s *schedule) Less(i, j int) bool {
	a, b := &s.entries[i], &s.entries[j]
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

func (s *schedule) Swap(i, j int) { s.entries[i], s.entries[j] = s.entries[j], s.entries[i] }

func (s *schedule) Push(x any) { s.entries = append(s.entries, x.(entry)) }

func (s *schedule) Pop() any {
	last := len(s.entries) - 1
	e := s.entries[last]
	s.entries[last] = entry{} // the unit may be forgotten: do not pin it
	s.entries = s.entries[:last]
	return e
}

func (s *schedule) push(at time.Time, u *unit) {
	if s.loading {
		s.entries = append(s.entries, entry{at, u.Seq, u})
		return
	}
	if len(s.entries) >= 2*s.swept+sweepMin {
		s.entries = slices.DeleteFunc(s.entries, func(e entry) bool { return !s.holds(e) })
		heap.Init(s)
		s.swept = len(s.entries)
	}
	heap.Push(s, entry{at, u.Seq, u})
}

func (s *schedule) pop() entry { return heap.Pop(s).(entry) }

// first is the earliest entry that still holds, dropping those that do not.
func (s *schedule) first() (entry, bool) {
	for len(s.entries) > 0 {
		if e := s.entries[0]; s.holds(e) {
			return e, true
		}
		s.pop()
	}
	return entry{}, false
}
