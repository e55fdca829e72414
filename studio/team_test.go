package studio_test

import (
	"context"
	"errors"
	"testing"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/studio"
)

// Two machines on one team database spend from one pool: what one sent
// counts against the daily cap the other checks.
func TestTeamCapHoldsAcrossMachines(t *testing.T) {
	isolated(t)
	url := pgtest.Get(t).Database(t, "", nil)
	clk := sandbox.NewFakeClock(wiringT0)
	machine := func() *studio.Studio {
		cfg := resolved(t, studio.Config{HistoryURL: url, HistoryURLGiven: true})
		cfg.DailyCreditCap = 100
		return openSandbox(t, cfg, clk)
	}
	a, b := machine(), machine()
	ctx := context.Background()
	body := map[string]any{"model": "svcq3-pro", "prompt": "a fox", "duration": 5}
	price := a.Price(api.OpText2Video, body)
	if !price.Known || price.Credits <= 0 || price.Credits > 100 {
		t.Fatalf("price %+v", price)
	}
	spent := int64(0)
	for spent+price.Credits <= 100 {
		sub, err := a.Submit(ctx, api.OpText2Video, body)
		if err != nil {
			t.Fatal(err)
		}
		spent += int64(sub.Task.Credits)
	}
	got, err := b.Spent(ctx)
	if err != nil || got.Today != spent {
		t.Fatalf("b sees %+v (%v), a spent %d", got, err, spent)
	}
	var ce *studio.CapError
	if err := b.CheckSpendCaps(ctx, price, ""); !errors.As(err, &ce) || ce.Spent != spent {
		t.Fatalf("b may send past the team's cap: %v", err)
	}
}
