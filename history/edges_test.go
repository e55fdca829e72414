package history

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Edges of the store's rules that a one-character slip would move: a lease
// that ends, a page that is the last, a search word of exactly three
// letters.

// A poller's lease holds until its end, not at it: at the instant it ends
// another process takes over; a moment before, the holder keeps it.
func TestPollerLeaseEndsAtItsEnd(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if holder, err := s.ClaimPoller(ctx, "a", t0, time.Minute, nil); err != nil || holder != "a" {
		t.Fatalf("first claim: %q, %v", holder, err)
	}
	if holder, _ := s.ClaimPoller(ctx, "b", t0.Add(time.Minute-time.Millisecond), time.Minute, nil); holder != "a" {
		t.Errorf("a millisecond before the lease ends: held by %q, want a", holder)
	}
	if holder, _ := s.ClaimPoller(ctx, "b", t0.Add(time.Minute), time.Minute, nil); holder != "b" {
		t.Errorf("as the lease ends: held by %q, want b", holder)
	}
	// A dead holder's lease is taken at once; a live one's is not.
	if holder, _ := s.ClaimPoller(ctx, "c", t0.Add(time.Minute), time.Minute, func(h string) bool { return h == "b" }); holder != "c" {
		t.Errorf("from a dead holder: held by %q, want c", holder)
	}
	if holder, _ := s.ClaimPoller(ctx, "d", t0.Add(time.Minute), time.Minute, func(string) bool { return false }); holder != "c" {
		t.Errorf("from a live holder: held by %q, want c", holder)
	}
}

// A page that holds exactly the rows left is the last: it has no next
// cursor, so a list does not offer an empty page.
func TestFullLastPageHasNoNext(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	seed(t, s, clk, []row{
		{api.OpText2Video, "m", "one", api.StateSuccess, 1, t0},
		{api.OpText2Video, "m", "two", api.StateSuccess, 1, t0.Add(time.Second)},
		{api.OpText2Video, "m", "three", api.StateSuccess, 1, t0.Add(2 * time.Second)},
	})
	for _, f := range []record.Filter{{Limit: 3}, {Limit: 3, Text: "text2video"}, {Limit: 1, States: []string{api.StateSuccess}, Text: "three"}} {
		p, err := s.Tasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tasks) != f.Limit || !p.Next.IsZero() {
			t.Errorf("%+v: %d tasks, next %+v; want a full page and no next", f, len(p.Tasks), p.Next)
		}
	}
	if p, _ := s.Tasks(ctx, record.Filter{Limit: 2}); p.Next.IsZero() {
		t.Error("a page of 2 of 3 tasks has no next cursor")
	}
}

// Search words are matched case-insensitively beyond ASCII too: a word of
// three letters or more is looked up in the index, which folds "ÉTÉ" and
// "été" alike.
func TestSearchFoldsCaseBeyondASCII(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	ids := seed(t, s, clk, []row{
		{api.OpText2Video, "m", "L'ÉTÉ à Paris", api.StateSuccess, 1, t0},
		{api.OpText2Video, "m", "winter in Oslo", api.StateSuccess, 1, t0.Add(time.Second)},
	})
	for _, word := range []string{"été", "ÉTÉ", "paris"} {
		p, err := s.Tasks(ctx, record.Filter{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tasks) != 1 || p.Tasks[0].LocalID != ids[0] {
			t.Errorf("%q finds %d tasks", word, len(p.Tasks))
		}
	}
}

// Opening retries while SQLite answers BUSY (two clappers switching a new
// file to WAL at once), and gives up at once on any other error.
func TestRetryBusyRetriesOnlyBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	holder, err := rawDB(t, path).Begin() // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	impatient, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer impatient.Close()
	calls := 0
	err = retryBusy(func() error {
		calls++
		if calls == 3 {
			holder.Rollback()
		}
		_, err := impatient.Exec(`CREATE TABLE IF NOT EXISTS t (a)`)
		return err
	})
	if err != nil || calls != 3 {
		t.Errorf("while the lock was held: %d calls, %v; want the third to pass", calls, err)
	}
	calls = 0
	err = retryBusy(func() error {
		calls++
		_, err := impatient.Exec(`CREATE TABLE t (a)`) // exists: an error, not BUSY
		return err
	})
	if err == nil || calls != 1 {
		t.Errorf("a lasting error: %d calls, %v; want one call and the error", calls, err)
	}
}
