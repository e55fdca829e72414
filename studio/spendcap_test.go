package studio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// The agent credit cap comes from the environment over the settings file
// (the mcp command's --daily-cap goes over both); 0 or off is no cap, and
// anything else is refused naming the variable.
func TestAgentCreditCapResolves(t *testing.T) {
	isolate(t)
	t.Setenv(EnvAgentCreditCap, "")
	if _, err := SaveSettings(Settings{AgentCreditCap: 300}); err != nil {
		t.Fatal(err)
	}
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err != nil || c.AgentCreditCap != 300 {
		t.Fatalf("saved cap: %d, %v", c.AgentCreditCap, err)
	}
	for env, want := range map[string]int64{"120": 120, "off": 0, "0": 0} {
		t.Setenv(EnvAgentCreditCap, env)
		c = Config{DataDir: t.TempDir()}
		if err := c.Resolve(); err != nil || c.AgentCreditCap != want {
			t.Errorf("%s=%s: cap %d, %v; want %d", EnvAgentCreditCap, env, c.AgentCreditCap, err, want)
		}
	}
	for _, bad := range []string{"-5", "lots", "1.5"} {
		t.Setenv(EnvAgentCreditCap, bad)
		c = Config{DataDir: t.TempDir()}
		if err := c.Resolve(); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), EnvAgentCreditCap) {
			t.Errorf("%s=%s: %v", EnvAgentCreditCap, bad, err)
		}
	}
}

// The daily and monthly caps sum every front end's tasks of the local day
// and month: the review's spending line names both, and a send that would
// pass either is refused naming it (the month's when only it is passed).
func TestSpendCapsSumTheDayAndTheMonth(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.Local)
	clock := now
	store, err := history.Open(t.TempDir()+"/h.db", history.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for i, at := range []time.Time{now.AddDate(0, 0, -3), now} { // earlier this month, and today
		clock = at
		id, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`), Origin: record.OriginTUI})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: fmt.Sprint("t", i), Credits: 100}); err != nil {
			t.Fatal(err)
		}
	}
	s := &Studio{Config: Config{DailyCreditCap: 150, MonthlyCreditCap: 250}, store: store, opts: Options{Clock: func() time.Time { return now }}}
	spent, over := s.SpendingFor(ctx, Price{Credits: 40, Known: true}, "")
	if spent != "100 credits today of 150 · 200 credits this month of 250" || over != "" {
		t.Fatalf("spent %q, over %q", spent, over)
	}
	var ce *CapError
	if err := s.CheckSpendCaps(ctx, Price{Credits: 60, Known: true}, ""); !errors.As(err, &ce) || ce.Period != "day" {
		t.Fatalf("60 more passes the daily cap: %v", err)
	}
	s.Config.DailyCreditCap = 0
	err = s.CheckSpendCaps(ctx, Price{Credits: 60, Known: true}, "this batch")
	if !errors.As(err, &ce) || ce.Period != "month" || !strings.Contains(err.Error(), "monthly credit cap is 250 credits and tasks have cost 200 credits this month; this batch costs 60 more") {
		t.Fatalf("60 more passes the monthly cap: %v", err)
	} // Once the day's spending has reached its cap, a send of unknown price
	// is refused; one that costs nothing (a sandbox composition) is not.
	s.Config.DailyCreditCap = 100
	if err := s.CheckSpendCaps(ctx, Price{Text: "unknown"}, ""); !errors.As(err, &ce) || ce.Period != "day" {
		t.Fatalf("an unpriced send at the cap: %v", err)
	}
	if err := s.CheckSpendCaps(ctx, Price{Known: true}, "this composition"); err != nil {
		t.Fatalf("a free send at the cap: %v", err)
	}
}

// An agent is held by the caps on all spending too, with no way past them.
func TestAgentSendsAreHeldByTheSpendCaps(t *testing.T) {
	ctx := context.Background()
	store, err := history.Open(t.TempDir() + "/h.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := &Studio{Config: Config{MonthlyCreditCap: 50}, store: store}
	var ce *CapError
	if err := s.CheckAgentCap(ctx, Price{Credits: 60, Known: true}); !errors.As(err, &ce) || ce.Period != "month" {
		t.Fatalf("an agent send past the monthly cap: %v", err)
	}
	if err := s.CheckAgentCap(ctx, Price{Credits: 40, Known: true}); err != nil {
		t.Fatalf("under every cap: %v", err)
	}
}
