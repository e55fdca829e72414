package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// flagRow is one task of the data the history flags are tried on.
type flagRow struct {
	op     api.Operation
	model  string
	prompt string
	state  string // "" leaves the request of unknown outcome
	at     time.Time
}

var flagDay = time.Date(2026, 11, 20, 10, 0, 0, 0, time.Local)

// flagRows: three days, three operations, four models, every kind of state.
var flagRows = []flagRow{
	{api.OpText2Video, "svcq1", "a red fox in snow", api.StateSuccess, flagDay},                                      // 1
	{api.OpText2Video, "svcq3-pro", "a whale at dawn", api.StateFailed, flagDay.Add(time.Hour)},                      // 2
	{api.OpImg2Video, "svcq3-turbo", "a red kite", api.StateProcessing, flagDay.AddDate(0, 0, 1)},                    // 3
	{api.OpReference2Image, "svcq2", "a fox portrait", api.StateSuccess, flagDay.AddDate(0, 0, 1).Add(time.Hour)},    // 4
	{api.OpText2Video, "svcq1", "city at night", "", flagDay.AddDate(0, 0, 2)},                                       // 5
	{api.OpImg2Video, "svcq3-turbo", "rain on glass", record.StateRejected, flagDay.AddDate(0, 0, 2).Add(time.Hour)}, // 6
}

// seedHistory writes rows into the sandbox history of data dir data, as
// the tracker would.
func seedHistory(t *testing.T, data string, rows []flagRow) {
	t.Helper()
	var now time.Time
	store, err := history.Open(filepath.Join(data, "history.db"), history.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	for i, r := range rows {
		now = r.at
		body, _ := json.Marshal(map[string]any{"model": r.model, "prompt": r.prompt})
		id, err := store.BeginSubmit(ctx, record.Intent{Operation: r.op, Model: r.model, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		switch r.state {
		case "":
		case record.StateRejected:
			if err := store.MarkRejected(ctx, id, record.Rejection{Status: 400, Reason: "FieldInvalid", Message: "no"}); err != nil {
				t.Fatal(err)
			}
		default:
			tid := fmt.Sprintf("81100000000000000%d", i+1)
			if err := store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: tid, State: api.StateCreated}); err != nil {
				t.Fatal(err)
			}
			if _, err := store.ApplyResult(ctx, tid, record.Update{State: r.state}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// listed runs clapper history --json with args and returns the local ids
// it printed, in order.
func listed(t *testing.T, data string, args ...string) []int64 {
	t.Helper()
	r := runCLIData(t, data, append([]string{"history", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("history %v: exit %d: %s", args, r.code, r.err)
	}
	var ids []int64
	sc := bufio.NewScanner(strings.NewReader(r.out))
	for sc.Scan() {
		var l struct {
			LocalID int64 `json:"local_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		ids = append(ids, l.LocalID)
	}
	return ids
}

// Every flag of clapper history narrows the list as its help says; a flag
// that is ignored lists rows it should not.
func TestHistoryFlagsEachNarrowTheList(t *testing.T) {
	data := t.TempDir()
	seedHistory(t, data, flagRows)
	for _, c := range []struct {
		args []string
		want []int64 // newest first
	}{
		{nil, []int64{6, 5, 4, 3, 2, 1}},
		{[]string{"--state", "success"}, []int64{4, 1}},
		{[]string{"--state", "failed,processing"}, []int64{3, 2}},
		{[]string{"--state", "unknown"}, []int64{5}},
		{[]string{"--state", "rejected"}, []int64{6}},
		{[]string{"--operation", "img2video"}, []int64{6, 3}},
		{[]string{"--operation", "text2video", "--operation", "reference2image"}, []int64{5, 4, 2, 1}},
		{[]string{"--model", "svcq1"}, []int64{5, 1}},
		{[]string{"--model", "svcq3-turbo,svcq2"}, []int64{6, 4, 3}},
		{[]string{"--search", "fox"}, []int64{4, 1}},
		{[]string{"--search", "red fox"}, []int64{1}},
		// The History page's search words work here too.
		{[]string{"--search", "state:success"}, []int64{4, 1}},
		{[]string{"--search", "fox op:text2video model:svcq1"}, []int64{1}},
		{[]string{"--search", "from:2026-11-21 to:2026-11-21"}, []int64{4, 3}},
		{[]string{"--search", "state:failed", "--state", "processing"}, []int64{3, 2}},
		{[]string{"--since", "2026-11-21"}, []int64{6, 5, 4, 3}},
		{[]string{"--until", "2026-11-21"}, []int64{2, 1}},
		{[]string{"--since", "2026-11-21", "--until", "2026-11-22"}, []int64{4, 3}},
		{[]string{"--since", flagDay.Add(30 * time.Minute).Format(time.RFC3339)}, []int64{6, 5, 4, 3, 2}},
		{[]string{"--limit", "2"}, []int64{6, 5}},
		{[]string{"--limit", "1", "--state", "success"}, []int64{4}},
		{[]string{"--operation", "text2video", "--model", "svcq1", "--state", "success", "--search", "fox"}, []int64{1}},
	} {
		if got := listed(t, data, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("history %v: listed %v, want %v", c.args, got, c.want)
		}
	}
}

// --limit 0 lists every task, past any page size; the default is 50; a
// limit past a page is kept on the next page too.
func TestHistoryLimitZeroListsAll(t *testing.T) {
	data := t.TempDir()
	const n = 1002 // past a page the command reads
	if err := history.WriteFixture(filepath.Join(data, "history.db"), n, flagDay, flagDay.AddDate(0, 0, 30)); err != nil {
		t.Fatal(err)
	}
	if got := len(listed(t, data, "--limit", "0")); got != n {
		t.Errorf("--limit 0 listed %d of %d tasks", got, n)
	}
	if got := len(listed(t, data)); got != 50 {
		t.Errorf("the default limit listed %d tasks, want 50", got)
	}
	if got := len(listed(t, data, "--limit", "1001")); got != 1001 {
		t.Errorf("--limit 1001 listed %d of %d tasks", got, n)
	}
}

// A flag value the command cannot read is a usage error naming the flag.
func TestHistoryFlagsRefuseWhatTheyCannotRead(t *testing.T) {
	data := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", "done"}, "--state"},
		{[]string{"--operation", "video"}, "--operation"},
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--until", "20/11/2026"}, "--until"},
	} {
		r := runCLIData(t, data, append([]string{"history"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("history %v: exit %d, %q; want exit 2 naming %s", c.args, r.code, r.err, c.want)
		}
	}
}

// The note under a request of unknown outcome gives the commands that
// resolve it with its own number (it said "resolve # TASK_ID", typed as
// it stood).
func TestHistoryNamesTheUnknownRequestInItsCommands(t *testing.T) {
	data := t.TempDir()
	seedHistory(t, data, flagRows)
	r := runCLIData(t, data, "history")
	if r.code != 0 {
		t.Fatalf("history: exit %d: %s", r.code, r.err)
	}
	flat := strings.Join(strings.Fields(r.out), " ")
	for _, want := range []string{"1 request(s) of unknown outcome", "clapper history resolve 5 TASK_ID", "clapper history abandon 5"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in:\n%s", want, r.out)
		}
	}
}
