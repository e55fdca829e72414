package forms

import (
	"fmt"
	"slices"

	"clapper/api/catalog"
)

// voiceChoices are what a voice field offers: the library's cloned voices,
// then the service's system voices.
func (c *Context) voiceChoices() []string {
	out := slices.Clone(c.Voices)
	for _, v := range catalog.SystemVoices {
		if !slices.Contains(out, v.ID) {
			out = append(out, v.ID)
		}
	}
	return out
}

// voiceNote says what a chosen voice is: one of the library's cloned
// voices, a system voice (with what it sounds like), or "" for neither.
func (c *Context) voiceNote(id string) string {
	if i := slices.Index(c.Voices, id); i >= 0 {
		return fmt.Sprintf("cloned voice %d of %d", i+1, len(c.Voices))
	}
	for _, v := range catalog.SystemVoices {
		if v.ID == id {
			return "system voice: " + v.Description
		}
	}
	return ""
}

// StoredSubject is a subject of the library: its name and the id
// reference2video names it by (server_id).
type StoredSubject struct{ Name, ID string }

// storedNote names the library subject a server_id is, "" for none.
func (c *Context) storedNote(id string) string {
	for _, sb := range c.Subjects {
		if sb.ID == id {
			return "stored subject " + sb.Name
		}
	}
	return ""
}

// Result is a finished task's image the forms offer where an image goes
// (ctrl+l): its URL while valid, else its saved file, and how to name it.
type Result struct {
	Value string
	// Label names the task: "#12 reference2image · a red fox".
	Label string
}

// nextResult is the result after the one a field holds (the first when it
// holds none of them).
func (c *Context) nextResult(current string) string {
	i := slices.IndexFunc(c.Results, func(r Result) bool { return r.Value == current })
	return c.Results[(i+1)%len(c.Results)].Value
}

// result finds the result a value is, for its name.
func (c *Context) result(v string) (Result, bool) {
	i := slices.IndexFunc(c.Results, func(r Result) bool { return r.Value == v })
	if i < 0 {
		return Result{}, false
	}
	return c.Results[i], true
}

// resultNote says which result a value is: "result 2 of 5: #12 …".
func (c *Context) resultNote(v string) string {
	i := slices.IndexFunc(c.Results, func(r Result) bool { return r.Value == v })
	if i < 0 {
		return ""
	}
	return fmt.Sprintf("result %d of %d: %s", i+1, len(c.Results), c.Results[i].Label)
}
