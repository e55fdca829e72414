package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// A request that never reached the service lists as not sent, not as a
// refusal.
func TestHistoryTableSaysNotSent(t *testing.T) {
	tasks := []record.Task{{LocalID: 3, Operation: api.OpText2Video, Model: "svcq1", State: record.StateRejected, CreatedAt: time.Now(),
		Rejection: &record.Rejection{Reason: record.ReasonNotSent, Message: "not sent: could not reach 127.0.0.1:9"}}}
	var b bytes.Buffer
	if err := writeHistoryTable(&b, tasks, false, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "not sent") || strings.Contains(got, "rejected") || strings.Contains(got, "NotSent") {
		t.Errorf("table:\n%s", got)
	}
}
