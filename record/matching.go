package record

// Totals is what the tasks that match a filter count and cost.
type Totals struct {
	States  map[string]int // tasks by state; states without tasks are absent
	Credits int64          // what they were charged
}

// Tasks is how many tasks match.
func (t Totals) Tasks() int {
	n := 0
	for _, c := range t.States {
		n += c
	}
	return n
}
