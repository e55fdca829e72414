package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// rowOf returns the table line of request #n.
func rowOf(out string, n string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == n {
			return l
		}
	}
	return ""
}

// The table says what each row is: "-" for a request with no task id, a
// refusal's reason and trace id, unknown for a request of unknown outcome
// (counted below the table, with what to do), and a task's tags before its
// prompt; --json carries a refusal only on a refused request.
func TestHistoryTableSaysWhatEachRowIs(t *testing.T) {
	data := t.TempDir()
	seedHistory(t, data, flagRows)
	store, err := history.Open(filepath.Join(data, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := store.SetLabels(ctx, 4, []string{"best", "fox"}, ""); err != nil {
		t.Fatal(err)
	}
	id, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Model: "svcq1", Body: []byte(`{"model":"svcq1","prompt":"too long"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkRejected(ctx, id, record.Rejection{Status: 400, Reason: "FieldInvalid", Message: "duration", TraceID: "tr-77"}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	r := runCLIData(t, data, "history")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for n, want := range map[string][]string{
		"1": {"811000000000000001", "success", "a red fox in snow"},
		"4": {"[best fox] a fox portrait"},
		"5": {" - ", "unknown", "city at night"},
		"6": {" - ", "rejected FieldInvalid", "rain on glass"},
		"7": {"rejected FieldInvalid (trace tr-77)"},
	} {
		row := rowOf(r.out, n)
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row %s %q lacks %q", n, row, w)
			}
		}
	}
	if row := rowOf(r.out, "1"); strings.Contains(row, "[") || strings.Contains(row, "(trace") {
		t.Errorf("an untagged, successful row: %q", row)
	}
	if !strings.Contains(r.out, "\n1 request(s) of unknown outcome:") {
		t.Errorf("the unknown request is not counted below the table:\n%s", r.out)
	}

	if r := runCLIData(t, data, "history", "--state", "success"); strings.Contains(r.out, "unknown outcome") {
		t.Errorf("no request of unknown outcome listed, yet:\n%s", r.out)
	}

	r = runCLIData(t, data, "history", "--json")
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var l historyLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		refused := l.State == record.StateRejected
		if refused != (l.Rejection != nil) || refused && l.Rejection.Reason != "FieldInvalid" {
			t.Errorf("#%d (%s): rejection %+v", l.LocalID, l.State, l.Rejection)
		}
	}
}
