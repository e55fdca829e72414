package history

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func TestOriginIsRecordedAndAgentCreditsAreSummedByDay(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	send := func(origin record.Origin, credits int64, answered bool) int64 {
		t.Helper()
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`), Origin: origin})
		if err != nil {
			t.Fatal(err)
		}
		if answered {
			if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "t" + clk.Now().Format("150405.000000"), Credits: credits}); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(time.Second)
		return id
	}
	first := send(record.OriginMCP, 40, true)
	send(record.OriginMCP, 25, true)
	send(record.OriginMCP, 0, false) // never answered: costs nothing
	send(record.OriginTUI, 100, true)
	send(record.OriginCLI, 7, true)
	task, err := s.Task(ctx, first)
	if err != nil || task.Origin != record.OriginMCP {
		t.Fatalf("origin %q, %v", task.Origin, err)
	}
	page, err := s.Tasks(ctx, record.Filter{})
	if err != nil || page.Tasks[0].Origin != record.OriginCLI || page.Tasks[1].Origin != record.OriginTUI {
		t.Fatalf("list origins: %v", err)
	}
	if n, err := s.CreditsSince(ctx, record.OriginMCP, t0); err != nil || n != 65 {
		t.Errorf("agent credits today %d, %v; want 65", n, err)
	}
	if n, err := s.CreditsSince(ctx, record.OriginMCP, t0.Add(time.Second)); err != nil || n != 25 {
		t.Errorf("agent credits since the second task %d, %v; want 25", n, err)
	}
}

func TestParseSearch(t *testing.T) {
	f, err := record.ParseSearch("red fox state:FAILED op:text2video model:svcq1 by:ann@studio-1 from:2026-11-01 to:2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	if f.Text != "red fox" || f.States[0] != "failed" || f.Operations[0] != api.OpText2Video || f.Models[0] != "svcq1" ||
		len(f.SentBy) != 1 || f.SentBy[0] != "ann@studio-1" ||
		f.From.Format(time.DateOnly) != "2026-11-01" || f.To.Format(time.DateOnly) != "2026-12-01" {
		t.Errorf("filter: %+v", f)
	}
	for in, want := range map[string]string{
		"op:img2vid":                    "op:img2vid: unknown operation",
		"from:yesterday":                "from:yesterday: give a date as YYYY-MM-DD",
		"from:2026-11-30 to:2026-11-01": "from: is after to:",
	} {
		if _, err := record.ParseSearch(in); err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// Every origin together ("") is what the daily and monthly caps sum.
func TestCreditsSinceAllOrigins(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for i, origin := range []record.Origin{record.OriginMCP, record.OriginTUI, record.OriginCLI} {
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`), Origin: origin})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: string(origin), Credits: int64(10 * (i + 1))}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.CreditsSince(ctx, "", time.Time{}); err != nil || n != 60 {
		t.Fatalf("all origins: %d, %v; want 60", n, err)
	}
}
