package api

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxIDLength bounds a task or job id. The spec calls ids strings and the
// service writes them in digits (18 of them today); letters, '-' and '_'
// are allowed too, since the sandbox's and other services' ids use them.
const MaxIDLength = 128

// CheckID refuses what no task or job id can be: empty, too long, made of
// dots alone (".." in /ent/v2/tasks/.. would read another path), or
// holding anything but ASCII letters, digits, '-', '_' and '.'. Every id,
// whether the service answered it or the user typed it, passes here before
// it is sent, stored or printed, so an id cannot carry a newline that
// forges a row of output or a control sequence.
func CheckID(id string) error {
	if id == "" {
		return fmt.Errorf("task id is empty")
	}
	if len(id) > MaxIDLength {
		return fmt.Errorf("task id %s… is %d characters; ids are at most %d", QuoteText(id[:20]), len(id), MaxIDLength)
	}
	if strings.Trim(id, ".") == "" {
		return fmt.Errorf("task id %s is dots alone; an id has a letter, digit, '-' or '_'", QuoteText(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("task id %s holds %s; ids are letters, digits, '-', '_' and '.'", QuoteText(id), strconv.QuoteRune(rune(c)))
		}
	}
	return nil
}

// QuoteText writes untrusted text as a Go-quoted string: every control
// character escaped, so it stays on one line and moves no cursor.
func QuoteText(s string) string { return strconv.QuoteToASCII(s) }

// checkIDs checks the job's id and every scene and composition id in it.
func (j *OneClickJob) checkIDs() error {
	if j.ID != "" {
		if err := CheckID(j.ID); err != nil {
			return err
		}
	}
	for _, rec := range j.JobRecords {
		for _, sub := range rec.Jobs {
			if sub.ID == "" {
				continue // a version not started yet has no id to print
			}
			if err := CheckID(sub.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
