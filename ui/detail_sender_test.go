package ui

import (
	"strings"
	"testing"

	"clapper/record"
)

// Who sent a task and on which account: the account's label stays with
// its value, on the sender's line while both fit and whole on the next
// when not; every line within the width.
func TestSenderTextKeepsTheAccountWhole(t *testing.T) {
	task := record.Task{SentBy: "ann@vm:/tmp/t29/ann/data", Origin: record.OriginCLI, Account: "key:6ab9f1eb8f7d"}
	for _, c := range []struct {
		w    int
		want []string
	}{
		{120, []string{"sent by ann@vm:/tmp/t29/ann/data from a clapper command · account key:6ab9f1eb8f7d"}},
		{80, []string{"sent by ann@vm:/tmp/t29/ann/data from a clapper command", "account key:6ab9f1eb8f7d"}},
		{40, []string{"sent by ann@vm:/tmp/t29/ann/data from a", "clapper command", "account key:6ab9f1eb8f7d"}},
	} {
		lines := strings.Split(senderText(task, c.w), "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " ")
		}
		if strings.Join(lines, "|") != strings.Join(c.want, "|") {
			t.Errorf("at %d: %q, want %q", c.w, lines, c.want)
		}
	}
	task.Account = "sandbox"
	if got := senderText(task, 80); strings.Contains(got, "account") {
		t.Errorf("the sandbox's account named: %q", got)
	}
}
