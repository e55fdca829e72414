package record

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"clapper/api"
)

// SearchSyntax is the History page's search language, for help texts.
const SearchSyntax = "words state:failed op:text2video model:svcq1 tag:keeper by:ann set:3 is:keeper from:2026-11-01 to:2026-11-30"

// SearchStates are the states a task can be in, as state: takes them:
// the service's, then those of a request not taken ("unknown" is a
// submission whose outcome is unknown, as the pages call it).
var SearchStates = []string{api.StateCreated, api.StateQueueing, api.StateProcessing, api.StateSuccess, api.StateFailed,
	"unknown", StateSubmitting, StateRejected, StateAbandoned}

// ParseState reads a state word of a search (any case); a word that is
// none is an error naming the states there are.
func ParseState(word string) (string, error) {
	st := strings.ToLower(word)
	if !slices.Contains(SearchStates, st) {
		return "", fmt.Errorf("a state is one of %s", strings.Join(SearchStates, ", "))
	}
	if st == "unknown" {
		st = StateSubmitting
	}
	return st, nil
}

// searchExamples shows each field of a search with a value.
var searchExamples = map[string]string{
	"state": "state:failed", "op": "op:text2video", "operation": "op:text2video", "model": "model:svcq1",
	"by": "by:ann (a user), by:studio-3 (a machine) or by:ann@studio-3", "set": "set:3", "is": "is:keeper",
	"tag": "tag:keeper", "from": "from:2026-11-01", "since": "from:2026-11-01", "to": "to:2026-11-30",
	"until": "to:2026-11-30",
}

// ParseSearch reads the History page's search ("words state:failed
// op:text2video model:svcq1 tag:keeper by:ann from:2026-11-01 to:2026-11-30") into
// a filter (the Tasks page's filter and list_tasks read it too); tag:a tag:b
// wants both;
// a word it cannot read is named with what is allowed. Dates are local days;
// to: includes its whole day.
func ParseSearch(s string) (Filter, error) {
	var f Filter
	var words []string
	for _, w := range strings.Fields(s) {
		k, v, ok := strings.Cut(w, ":")
		if ok && v == "" {
			// A field given no value is a slip, not a word to look for.
			if example, known := searchExamples[strings.ToLower(k)]; known {
				return f, fmt.Errorf("%s: needs a value, as %s", strings.ToLower(k), example)
			}
		}
		if !ok || v == "" {
			words = append(words, w)
			continue
		}
		switch strings.ToLower(k) {
		case "state":
			st, err := ParseState(v)
			if err != nil {
				return f, fmt.Errorf("state:%s: %w", api.CleanLine(v), err)
			}
			f.States = append(f.States, st)
		case "op", "operation":
			op, err := api.ParseOperation(v)
			if err != nil {
				return f, fmt.Errorf("op:%s: %v", v, err)
			}
			f.Operations = append(f.Operations, op)
		case "model":
			f.Models = append(f.Models, v)
		case "by":
			f.SentBy = append(f.SentBy, v)
		case "set":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return f, fmt.Errorf("set:%s: a set is its number, as set:3 (clapper history shows it, the sheet's title too)", api.CleanLine(v))
			}
			f.SetID = n
		case "is":
			if strings.ToLower(v) != "keeper" {
				return f, fmt.Errorf("is:%s: is: takes keeper (the version a contact sheet keeps, ★)", api.CleanLine(v))
			}
			f.Keeper = true
		case "tag":
			tag, err := ParseTag(v)
			if err != nil {
				return f, fmt.Errorf("tag:%s: a tag is %s", api.CleanLine(v), TagRule)
			}
			f.Tags = append(f.Tags, tag)
		case "from", "since":
			t, err := time.ParseInLocation("2006-01-02", v, time.Local)
			if err != nil {
				return f, fmt.Errorf("from:%s: give a date as YYYY-MM-DD", v)
			}
			f.From = t
		case "to", "until":
			t, err := time.ParseInLocation("2006-01-02", v, time.Local)
			if err != nil {
				return f, fmt.Errorf("to:%s: give a date as YYYY-MM-DD", v)
			}
			f.To = t.AddDate(0, 0, 1) // the whole day
		default:
			words = append(words, w)
		}
	}
	f.Text = strings.Join(words, " ")
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, fmt.Errorf("from: is after to:; give an earlier from date")
	}
	return f, nil
}
