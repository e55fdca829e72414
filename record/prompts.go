package record

import (
	"clapper/api"
	"time"
)

// Prompt is one distinct prompt (or speech text) sent before.
type Prompt struct {
	Text string
	// Operation last sent it (with Operation "" in the query: the newest of
	// the operations that did).
	Operation api.Operation
	UsedAt    time.Time
	Starred   bool
}

// PromptQuery asks for earlier prompts.
type PromptQuery struct {
	// Operation keeps the prompts sent with it; "" searches every operation
	// (a text used by several shows once).
	Operation api.Operation
	// Pattern is matched fuzzily: its characters (spaces left out) must
	// occur in the prompt in this order, case-insensitively for ASCII.
	Pattern string
	// Limit bounds the answer; zero means DefaultPromptLimit.
	Limit int
}
