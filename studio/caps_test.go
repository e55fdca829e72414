package studio_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// Ten senders at once, in two processes on one history, against a service
// that takes its time to answer and a daily cap of 100: the spending never
// passes the cap, because each request reserves its price as it is
// recorded, in the transaction that checks the cap. A send the person
// allowed past the cap (OverCap) is not held to it.
func TestCapsHoldAgainstTenParallelSenders(t *testing.T) {
	isolated(t)
	cfg := resolved(t, studio.Config{DailyCreditCap: 100})
	ctx := context.Background()
	open := func() *studio.Studio {
		// Every request waits 150 ms before the service answers: every
		// sender has checked before any is answered.
		s, err := studio.Open(ctx, cfg, studio.Options{SendOnly: true, Origin: record.OriginCLI,
			Sandbox: &sandbox.Config{Seed: 9, SlowRate: 1, SlowDelay: 150 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	procs := []*studio.Studio{open(), open()} // two processes on one history
	body := func() map[string]any { return map[string]any{"model": "svcq3-pro", "prompt": "a fox", "duration": 5} }
	price := procs[0].Price(api.OpText2Video, body())
	if !price.Known || price.Credits < 10 || price.Credits > 50 {
		t.Fatalf("price %+v", price)
	}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := procs[i%2]
			// Each checks first, as the front ends do: all pass, nothing is spent yet.
			if err := s.CheckSpendCaps(ctx, price, ""); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = s.SendFrom(ctx, api.OpText2Video, body(), nil)
		}()
	}
	wg.Wait()
	sent, capped := 0, 0
	for _, err := range errs {
		var ce *studio.CapError
		switch {
		case err == nil:
			sent++
		case errors.As(err, &ce):
			capped++
		default:
			t.Errorf("a send failed otherwise: %v", err)
		}
	}
	spent, err := procs[0].Spent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if spent.Today > 100 || int64(sent) != 100/price.Credits || capped != 10-sent {
		t.Fatalf("%d sent, %d refused by the cap, %d credits spent of 100 (price %d)", sent, capped, spent.Today, price.Credits)
	}
	if _, err := procs[1].SendFrom(studio.OverCap(ctx), api.OpText2Video, body(), nil); err != nil {
		t.Errorf("a send allowed past the cap: %v", err)
	}
}

// A running set holds the lines it has not sent: with five at the service
// and two waiting, another send that fits beside the five but not beside
// all seven is refused by the daily cap.
func TestRunningSetHoldsItsWaitingLinesAgainstTheCap(t *testing.T) {
	s, _ := startedSetStudio(t)
	ctx := context.Background()
	body := map[string]any{"model": "svcq2", "prompt": "a lighthouse"}
	reqs, err := studio.SeedVariations(api.OpReference2Image, body, 7)
	if err != nil {
		t.Fatal(err)
	}
	each := s.Price(api.OpReference2Image, body)
	if !each.Known || each.Credits == 0 {
		t.Fatalf("price %+v", each)
	}
	s.Config.DailyCreditCap = 7*each.Credits + each.Credits/2
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "seven", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.SetActivity(id).Waiting) != 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if w := s.SetActivity(id).Waiting; len(w) != 2 {
		t.Fatalf("waiting %v", w)
	}
	var ce *studio.CapError
	if _, err := s.SendFrom(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "another"}, nil); !errors.As(err, &ce) {
		t.Fatalf("a send took the room of the set's waiting lines: %v", err)
	}
	// That the set's own lines pass its hold is history's rule
	// (TestSetHoldsItsUnsentLines there).
}
