package record

// Totals is what the tasks that match a filter count and cost, with the
// charts of those in a span of dates.
type Totals struct {
	States  map[string]int // tasks by state; states without tasks are absent
	Credits int64          // what they were charged
	// ByDay and ByModel are CreditsByDay and CreditsByModel of the
	// matches in the span asked for (none asked: nil).
	ByDay   []DayCredits
	ByModel []ModelCredits
}

// Tasks is how many tasks match.
func (t Totals) Tasks() int {
	n := 0
	for _, c := range t.States {
		n += c
	}
	return n
}
