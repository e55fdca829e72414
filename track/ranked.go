package track

import "math/rand/v2"

// ranked keeps followed tasks in the order the service queues them
// (submittedBefore) and counts the tasks before any one of them in
// O(log n): a treap whose nodes know the size of their subtree. Following
// 20,000 tasks then costs 20,000 small steps instead of 20,000² comparisons.
type ranked struct {
	root *rankNode
}

type rankNode struct {
	t           *watched
	prio        uint64
	size        int
	left, right *rankNode
}

func (n *rankNode) count() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *rankNode) fix() { n.size = 1 + n.left.count() + n.right.count() }

// split cuts n into the tasks before t and the rest (t included).
func split(n *rankNode, t *watched) (before, rest *rankNode) {
	if n == nil {
		return nil, nil
	}
	if submittedBefore(n.t, t) {
		n.right, rest = split(n.right, t)
		n.fix()
		return n, rest
	}
	before, n.left = split(n.left, t)
	n.fix()
	return before, n
}

// merge joins two treaps whose every task of a comes before every task of b.
func merge(a, b *rankNode) *rankNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	default:
		b.left = merge(a, b.left)
		b.fix()
		return b
	}
}

// add inserts t; a task is added once (the watcher adds it when it starts
// following it, or when it enters the state the set holds).
func (r *ranked) add(t *watched) {
	before, rest := split(r.root, t)
	r.root = merge(merge(before, &rankNode{t: t, prio: rand.Uint64(), size: 1}), rest)
}

// remove takes t out, if it is in.
func (r *ranked) remove(t *watched) {
	before, rest := split(r.root, t)
	if rest != nil {
		// The first node of rest is t when t is in: cut it off.
		first, after := splitFirst(rest)
		if first.t != t {
			after = merge(first, after)
		}
		rest = after
	}
	r.root = merge(before, rest)
}

// splitFirst cuts the first task off a non-empty treap.
func splitFirst(n *rankNode) (first, rest *rankNode) {
	if n.left == nil {
		rest, n.right = n.right, nil
		n.fix()
		return n, rest
	}
	first, n.left = splitFirst(n.left)
	n.fix()
	return first, n
}

// before counts the tasks in the set that come before t.
func (r *ranked) before(t *watched) int {
	n, c := r.root, 0
	for n != nil {
		if submittedBefore(n.t, t) {
			c += n.left.count() + 1
			n = n.right
		} else {
			n = n.left
		}
	}
	return c
}

// first returns the earliest task that ok accepts, walking in order and
// stopping at the first match; nil when none does.
func (r *ranked) first(ok func(*watched) bool) *watched {
	var found *watched
	var walk func(n *rankNode) bool
	walk = func(n *rankNode) bool {
		if n == nil {
			return false
		}
		if walk(n.left) {
			return true
		}
		if ok(n.t) {
			found = n.t
			return true
		}
		return walk(n.right)
	}
	walk(r.root)
	return found
}
