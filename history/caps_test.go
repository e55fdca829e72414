package history

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Twenty senders on two stores (two processes, or two machines on a team's
// database) record requests of 20 credits at once against a daily cap of
// 100: exactly five are recorded, the others are refused with the spending
// they met; an answered request counts what the service charged, a refused
// one releases its reservation.
func TestCapsHoldAgainstParallelSenders(t *testing.T) {
	open := sharedDatabase(t)
	stores := []*Store{open(), open()}
	ctx := context.Background()
	daily := []record.Cap{{Limit: 100, Since: t0.Add(-24 * time.Hour), Known: true}}
	var (
		wg      sync.WaitGroup
		sent    atomic.Int32
		refused atomic.Int32
		ids     = make(chan int64, 20)
	)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := stores[i%2].BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video,
				Body: fmt.Appendf(nil, `{"prompt":"p%d"}`, i), Reserve: 20, Caps: daily})
			var ce *record.CapExceeded
			switch {
			case err == nil:
				sent.Add(1)
				ids <- id
			case errors.As(err, &ce) && ce.Spent >= 81:
				refused.Add(1)
			default:
				t.Errorf("sender %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	close(ids)
	if sent.Load() != 5 || refused.Load() != 15 {
		t.Fatalf("%d recorded, %d refused; want 5 and 15", sent.Load(), refused.Load())
	}
	s := stores[0]
	spent := func() int64 {
		n, err := s.CreditsSince(ctx, "", t0.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := spent(); got != 100 {
		t.Fatalf("reserved %d, want 100", got)
	}
	var list []int64
	for id := range ids {
		list = append(list, id)
	}
	// The service charged 25 for one (the price was a guess), refused
	// another: 100 - 20 + 25 - 20.
	if err := s.MarkSubmitted(ctx, list[0], record.SubmittedEcho{TaskID: "tk-a", Credits: 25}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRejected(ctx, list[1], record.Rejection{Status: 400, Reason: "invalid"}); err != nil {
		t.Fatal(err)
	}
	if got := spent(); got != 85 {
		t.Errorf("after an answer and a refusal: %d, want 85", got)
	}
	// 85 + 20 passes 100; a request of unknown price passes until the cap
	// is reached.
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"x"}`), Reserve: 20, Caps: daily}); err == nil {
		t.Error("a 20-credit request at 85 of 100 was recorded")
	}
	unknown := []record.Cap{{Limit: 100, Since: t0.Add(-24 * time.Hour)}}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"y"}`), Caps: unknown}); err != nil {
		t.Errorf("a request of unknown price at 85 of 100: %v", err)
	}
}

// A running set holds its unsent lines as a whole: another request is
// refused the room it holds, its own lines are not, each line's
// reservation takes over its share, and the hold ends when the run
// releases it or stops saying it runs.
func TestSetHoldsItsUnsentLines(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	day := []record.Cap{{Limit: 85, Since: t0.Add(-time.Hour), Period: "day", Known: true}}
	members := []record.SetMember{{Line: 1, Operation: api.OpText2Video}, {Line: 2, Operation: api.OpText2Video}}
	set, _, err := s.OpenSet(ctx, record.SetBatch, "k", "b.jsonl", members)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReserveSet(ctx, set, 90, day); !errors.As(err, new(*record.CapExceeded)) {
		t.Fatalf("a set of 90 under a cap of 85: %v", err)
	}
	if err := s.ReserveSet(ctx, set, 80, day); err != nil {
		t.Fatal(err)
	}
	other := func() error {
		_, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"other"}`), Reserve: 10, Caps: day})
		return err
	}
	if err := other(); !errors.As(err, new(*record.CapExceeded)) {
		t.Fatalf("another request took the set's room: %v", err)
	}
	for line := 1; line <= 2; line++ {
		if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: fmt.Appendf(nil, `{"prompt":"line %d"}`, line),
			Reserve: 40, Caps: day, Set: &record.SetLine{SetID: set, Line: line}}); err != nil {
			t.Fatalf("line %d was refused by its own set's hold: %v", line, err)
		}
	}
	if n, _ := s.CreditsSince(ctx, "", t0.Add(-time.Hour)); n != 80 {
		t.Errorf("two lines of 40 sent from a hold of 80: %d spent or held, want 80", n)
	}
	if err := s.ReserveSet(ctx, set, 30, nil); err != nil { // a resumed run holds again
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute) // the run stopped saying it runs
	if n, _ := s.CreditsSince(ctx, "", t0.Add(-time.Hour)); n != 80 {
		t.Errorf("a lapsed hold still counts: %d", n)
	}
	if err := s.ReserveSet(ctx, set, 0, nil); err != nil {
		t.Fatal(err)
	}
}

// A cap is on what an account spends: a team's history that holds another
// account's tasks (a second key, a colleague's own sandbox) counts only
// this store's account, and the tasks recorded before accounts were kept.
func TestCapsCountTheStoresAccount(t *testing.T) {
	open := sharedDatabase(t)
	live, other, old := open(WithSender("key:1", "ann@studio-1")), open(WithSender("sandbox:bob@studio-2", "bob@studio-2")), open()
	ctx := context.Background()
	daily := []record.Cap{{Limit: 100, Since: t0.Add(-24 * time.Hour), Known: true}}
	for i, c := range []struct {
		s       *Store
		reserve int64
	}{{other, 60}, {old, 30}, {live, 70}} {
		if _, err := c.s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video,
			Body: fmt.Appendf(nil, `{"prompt":"p%d"}`, i), Reserve: c.reserve}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := live.CreditsSince(ctx, "", t0.Add(-24*time.Hour)); err != nil || n != 100 {
		t.Errorf("key:1 spent %d (%v), want its 70 and the 30 recorded before accounts", n, err)
	}
	_, err := live.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"one more"}`), Reserve: 1, Caps: daily})
	var ce *record.CapExceeded
	if !errors.As(err, &ce) || ce.Spent != 100 {
		t.Errorf("key:1 at its cap sends one more: %v", err)
	}
	if _, err := other.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"b2"}`), Reserve: 5, Caps: daily}); err != nil {
		t.Errorf("bob's sandbox, 65 of its own and 30 old: %v", err)
	}
}
