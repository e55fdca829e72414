package record

import "clapper/api"

// Parent is the task a request is sent onward from, and the field of the
// request its result fills (images[0], video_url, subjects[].images).
type Parent struct {
	LocalID int64
	Field   string
}

// Link is one end of a chain as a task's detail shows it: the other task,
// summed up, and the field of the child the parent's result filled.
type Link struct {
	LocalID   int64
	TaskID    string
	Operation api.Operation
	State     string
	Field     string
}

// LineageNode is one task of a lineage: the task summed up, how far from
// the task asked about (negative: made before it, in its sources), and the
// tasks of the lineage it was made from, by field.
type LineageNode struct {
	LocalID   int64
	TaskID    string
	Operation api.Operation
	State     string
	Prompt    string
	Depth     int
	From      []Link
}
