package api

// The one order of task states: the client's tracker and the history both
// decide with it whether an answer moves a task on or is stale (a slow poll
// answer arriving after a callback, a service replica lagging behind).

// StateRank places a state in the lifecycle: created (and "", a task whose
// state is not known yet) 0, queueing 1, processing 2, a final state
// (IsTerminal) 3. A word the spec does not name ranks -1: unordered, since
// nothing says where it lies.
func StateRank(state string) int {
	switch state {
	case StateCreated, "":
		return 0
	case StateQueueing:
		return 1
	case StateProcessing:
		return 2
	}
	if IsTerminal(state) {
		return 3
	}
	return -1
}

// Supersedes reports whether an answer in state next may replace the
// recorded state current:
//
//   - the same state again, yes: the answer brings news within it (progress,
//     credits, fresh result URLs), so processing -> processing is applied;
//   - from a final state to any other state, no: a task ends once, and the
//     first final answer recorded is the one kept. A different final answer
//     later (success after failed, or a callback retried after a poll said
//     otherwise) is stale, as is any answer after the end;
//   - to or from a word the spec does not name, yes: nothing says where it
//     lies, and a task must not stick on it before the service names a
//     final state;
//   - otherwise, yes unless next ranks before current.
func Supersedes(current, next string) bool {
	if next == current {
		return true
	}
	if IsTerminal(current) {
		return false
	}
	rc, rn := StateRank(current), StateRank(next)
	if rc < 0 || rn < 0 {
		return true
	}
	return rn >= rc
}
