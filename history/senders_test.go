package history

import (
	"context"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Every task records its account and who sent it; by: finds a user on any
// machine, a machine by anyone, or one user@machine; the poller of an
// account follows only that account's tasks (and those recorded before
// accounts were kept).
func TestTasksKnowTheirAccountAndSender(t *testing.T) {
	open := sharedDatabase(t)
	ann := open(WithSender("acct-1", "ann@studio-1"))
	bob := open(WithSender("acct-1", "bob@studio-2"))
	other := open(WithSender("acct-2", "cy@studio-1"))
	dee := open(WithSender("acct-2", "dee@studio-3:/srv/clapper")) // a data folder of its own
	old := open()
	submitted(t, dee, "tk-dee", `{"prompt":"e"}`)
	submitted(t, ann, "tk-ann", `{"prompt":"a"}`)
	submitted(t, bob, "tk-bob", `{"prompt":"b"}`)
	submitted(t, other, "tk-cy", `{"prompt":"c"}`)
	submitted(t, old, "tk-old", `{"prompt":"d"}`)
	ctx := context.Background()
	task, err := ann.TaskByID(ctx, "tk-bob")
	if err != nil || task.Account != "acct-1" || task.SentBy != "bob@studio-2" {
		t.Fatalf("bob's task: %+v %v", task, err)
	}
	for _, c := range []struct {
		by   []string
		want []string
	}{
		{[]string{"ann"}, []string{"tk-ann"}},
		{[]string{"studio-1"}, []string{"tk-cy", "tk-ann"}},
		{[]string{"bob@studio-2"}, []string{"tk-bob"}},
		{[]string{"ann", "bob"}, []string{"tk-bob", "tk-ann"}},
		{[]string{"an"}, nil},
		{[]string{"studio"}, nil},
		{[]string{"studio-3"}, []string{"tk-dee"}},
		{[]string{"dee@studio-3"}, []string{"tk-dee"}},
		{[]string{"dee"}, []string{"tk-dee"}},
		{[]string{"dee@studio-3:/srv/clapper"}, []string{"tk-dee"}},
		{[]string{"studio-3:/srv"}, nil},
	} {
		page, err := ann.Tasks(ctx, record.Filter{SentBy: c.by})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, t := range page.Tasks {
			got = append(got, t.TaskID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("by:%v lists %v, want %v", c.by, got, c.want)
		}
		counts, err := ann.CountsByState(ctx, record.Filter{SentBy: c.by})
		if err != nil || counts["created"] != len(c.want) {
			t.Errorf("by:%v counts %v (%v), want %d", c.by, counts, err, len(c.want))
		}
	}
	tasks, _, err := ann.FollowableSince(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var follows []string
	for _, t := range tasks {
		follows = append(follows, t.TaskID)
	}
	if !slices.Equal(follows, []string{"tk-ann", "tk-bob", "tk-old"}) {
		t.Errorf("acct-1's poller follows %v", follows)
	}
	tasks, _, err = ann.FollowableSince(ctx, 1)
	follows = nil
	for _, t := range tasks {
		follows = append(follows, t.TaskID)
	}
	if err != nil || slices.Contains(follows, "tk-cy") || !slices.Contains(follows, "tk-bob") {
		t.Errorf("acct-1's poller follows the changes %v (%v)", follows, err)
	}
}

// A voice remembers who used it last: the sender of the latest synthesis,
// not of one recorded later that was made earlier.
func TestVoiceRemembersWhoUsedItLast(t *testing.T) {
	open := sharedDatabase(t)
	ann := open(WithSender("acct-1", "ann@studio-1"))
	bob := open(WithSender("acct-1", "bob@studio-2"))
	ctx := context.Background()
	if err := ann.RecordVoice(ctx, record.Voice{VoiceID: "v1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	late := speak(t, bob, "v1", t0.Add(2*time.Hour), api.StateSuccess)
	early := speak(t, ann, "v1", t0.Add(time.Hour), api.StateSuccess)
	for _, id := range []string{late, early} {
		if err := ann.RecordVoiceUse(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if v := voice(t, ann, "v1"); v.LastUsedBy != "bob@studio-2" || !v.LastUsedAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("last used by %q at %v", v.LastUsedBy, v.LastUsedAt)
	}
}

// The latest read of an account is kept; one older than it (another
// machine answering late) is dropped.
func TestAccountReadKeepsTheLatest(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, ok, err := s.AccountRead(ctx, "acct-1"); ok || err != nil {
		t.Fatalf("a read before any was kept: %v %v", ok, err)
	}
	newer := record.AccountRead{Account: "acct-1", Remaining: 900, HasConcurrency: true, Running: 2, Queued: 1, Limit: 5, ReadAt: t0.Add(time.Minute)}
	older := record.AccountRead{Account: "acct-1", Remaining: 1000, ReadAt: t0}
	for _, r := range []record.AccountRead{newer, older, {Account: "acct-2", Remaining: 7, ReadAt: t0}} {
		if err := s.SaveAccountRead(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := s.AccountRead(ctx, "acct-1"); err != nil || !ok || got != newer {
		t.Errorf("kept %+v (%v), want %+v", got, err, newer)
	}
}
