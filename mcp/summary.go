package mcp

import (
	"fmt"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// The summaries are each answer in words: what a person reads in the
// client, and all that clients which pass only text to their model see.
// They hold every fact an agent acts on (ids, states, URLs, paths), never
// the structured answer again as JSON.

func (c created) summary() string {
	s := fmt.Sprintf("%s task %s (#%d", c.Operation, c.TaskID, c.LocalID)
	if c.Model != "" {
		s += ", " + c.Model
	}
	s += fmt.Sprintf("): %s. Price: %s.", c.State, c.Price)
	if c.VoiceID != "" {
		s += " Voice id: " + c.VoiceID + "."
	}
	if c.AudioURL != "" {
		s += " Audio: " + c.AudioURL
	}
	if c.Preview != "" {
		s += " Preview: " + c.Preview
	}
	if c.Warning != "" {
		s += " Warning: " + c.Warning + "."
	}
	return s + " Follow it with " + c.Follow + "."
}

func (v verdict) summary() string {
	var b strings.Builder
	if v.Valid {
		fmt.Fprintf(&b, "%s request is valid. Price: %s.", v.Operation, v.Price)
	} else {
		fmt.Fprintf(&b, "%s request breaks %s:", v.Operation, textutil.Plural(len(v.Problems), "rule"))
		for _, p := range v.Problems {
			b.WriteString("\n  " + p.Message)
		}
	}
	if v.Spending != nil {
		b.WriteString("\nSpending: " + v.Spending.Text)
		if v.Spending.Refused != "" {
			b.WriteString("\nA send would be refused: " + v.Spending.Refused)
		}
	}
	if v.Confirm != "" {
		b.WriteString("\n" + v.Confirm)
	}
	b.WriteString("\n" + v.Note + ".")
	return b.String()
}

// rulesOut is describe_operation's answer.
type rulesOut struct {
	catalog.OperationRules
}

func (r rulesOut) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (POST %s): %s.", r.Operation, r.Path, r.Title)
	for _, m := range r.Models {
		if m.Model != "" {
			fmt.Fprintf(&b, "\nModel %s:", m.Model)
		}
		spec, err := catalog.Lookup(api.Operation(r.Operation), m.Model)
		if err != nil {
			continue // described a moment ago: the catalog does not change
		}
		for _, f := range spec.Fields {
			fmt.Fprintf(&b, "\n  %s: %s", f.Name, f.Describe())
			if f.Help != "" {
				b.WriteString(" (" + strings.TrimSuffix(f.Help, ".") + ")")
			}
		}
	}
	return b.String()
}

func (t taskOut) summary() string {
	var b strings.Builder
	b.WriteString(t.line())
	for _, r := range t.Results {
		fmt.Fprintf(&b, "\n  result %d: %s", r.Index, r.URL)
		if r.CoverURL != "" {
			b.WriteString(" cover: " + r.CoverURL)
		}
		if r.ExpiresAt != "" {
			b.WriteString(" (URLs expire " + r.ExpiresAt + ")")
		}
	}
	for _, f := range t.Files {
		fmt.Fprintf(&b, "\n  %s %d %s: %s", f.Kind, f.Index, f.Status, f.Path)
		if f.Resource != "" {
			b.WriteString(" (resource " + f.Resource + ")")
		}
	}
	for _, f := range t.From {
		fmt.Fprintf(&b, "\n  sent onward from %s task %s (#%d) into %s", f.Operation, f.TaskID, f.LocalID, f.Field)
	}
	for _, o := range t.Onward {
		fmt.Fprintf(&b, "\n  sent onward to %s task %s (#%d) as %s", o.Operation, o.TaskID, o.LocalID, o.Field)
	}
	switch t.Waited {
	case "timeout":
		b.WriteString("\nStill running when the wait ended: call wait_task again.")
	case "lost":
		b.WriteString("\nThe service does not know this task: history keeps it as it was.")
	}
	if t.Follow != "" {
		b.WriteString("\nFollow it with " + t.Follow + ".")
	}
	return b.String()
}

// line is a task on one line: what list_tasks gives per task.
func (t taskOut) line() string {
	id := t.TaskID
	if id == "" {
		id = "(not sent)"
	}
	s := fmt.Sprintf("#%d %s task %s", t.LocalID, t.Operation, id)
	if t.Model != "" {
		s += " " + t.Model
	}
	s += ": " + t.State
	if t.Progress != nil {
		s += fmt.Sprintf(" %d%%", *t.Progress)
	}
	if t.ErrCode != "" {
		s += " (" + t.ErrCode + ")"
	}
	if t.Credits > 0 {
		s += fmt.Sprintf(", %d credits", t.Credits)
	}
	s += ", " + t.CreatedAt
	if t.Prompt != "" {
		s += ": " + textutil.Truncate(t.Prompt, 80)
	}
	return s
}

func (l taskList) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, newest first.", textutil.Plural(len(l.Tasks), "task"))
	for _, t := range l.Tasks {
		b.WriteString("\n" + t.line())
	}
	if l.Cursor != "" {
		b.WriteString("\nMore: call list_tasks again with cursor " + l.Cursor + ".")
	}
	return b.String()
}

func (d downloadsOut) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Files of task %s:", d.TaskID)
	for _, f := range d.Files {
		fmt.Fprintf(&b, "\n  %s %d %s: %s", f.Kind, f.Index, f.Status, f.Path)
		if f.Error != "" {
			b.WriteString(" (" + f.Error + ")")
		}
	}
	return b.String()
}

func (v voicesOut) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s cloned, %s of the service.", textutil.Plural(len(v.Voices), "voice"), textutil.Plural(len(v.System), "system voice"))
	for _, c := range v.Voices {
		fmt.Fprintf(&b, "\n  %s: %s", c.VoiceID, c.TimeLeft)
	}
	for _, sv := range v.System {
		fmt.Fprintf(&b, "\n  %s (system): %s", sv.VoiceID, sv.Name)
	}
	return b.String()
}

func (j jobOut) summary() string {
	var b strings.Builder
	if j.JobID == "" {
		fmt.Fprintf(&b, "%s in history.", textutil.Plural(len(j.Jobs), "multi-scene job"))
		for _, s := range j.Jobs {
			fmt.Fprintf(&b, "\n  %s: %s, %d scenes, %d versions, %d being made: %s", s.JobID, s.State, s.Scenes, s.Versions, s.Busy, textutil.Truncate(s.Prompt, 60))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Job %s: %s", j.JobID, j.State)
	if j.ErrCode != "" {
		b.WriteString(" (" + j.ErrCode + ")")
	}
	for _, s := range j.Scenes {
		fmt.Fprintf(&b, "\n  scene %d:", s.Scene)
		for _, v := range s.Versions {
			fmt.Fprintf(&b, " %s %s", v.ID, v.State)
			if v.Chosen {
				b.WriteString(" (chosen)")
			}
			b.WriteString(";")
		}
	}
	for _, c := range j.Compositions {
		fmt.Fprintf(&b, "\n  composition %s: %s", c.ID, c.State)
	}
	return b.String()
}

func (s startedOut) summary() string {
	msg := fmt.Sprintf("Job %s: version %s is being made.", s.JobID, s.VersionID)
	if len(s.Composed) > 0 {
		msg += " Composed from " + strings.Join(s.Composed, ", ") + "."
	}
	return msg + " Follow it with " + s.Follow + "."
}
