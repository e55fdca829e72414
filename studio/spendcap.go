package studio

import (
	"context"
	"fmt"
	"strings"
	"time"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
)

// CapError refuses a send that would take spending past a credit cap:
// the day's agent cap, or the daily or monthly cap on all spending.
// Nothing was sent.
type CapError struct {
	Cap   int64  // credits per Period
	Spent int64  // credits the capped tasks cost so far this Period
	Price Price  // this request's (or set's) expected cost
	Scope string // "agent work", or "" for every task
	// Period is "day" or "month"; Setting names where the cap is set.
	Period, Setting string
	// Sending is what was priced: "this request" when empty, "this batch".
	Sending string
}

func (e *CapError) Error() string {
	what, when, adjective := "tasks have", "today", "daily"
	if e.Scope != "" {
		what = "agent tasks have"
	}
	if e.Period == "month" {
		when, adjective = "this month", "monthly"
	}
	sending := e.Sending
	if sending == "" {
		sending = "this request"
	}
	cap := "the " + adjective + " credit cap"
	if e.Scope != "" {
		cap += " for " + e.Scope
	}
	msg := fmt.Sprintf("not sent: %s is %s and %s cost %s %s", cap,
		textutil.Plural(int(e.Cap), "credit"), what, textutil.Plural(int(e.Spent), "credit"), when)
	if e.Price.Known {
		verb := "costs"
		if strings.HasPrefix(sending, "these ") {
			verb = "cost"
		}
		msg += fmt.Sprintf("; %s %s %d more", sending, verb, e.Price.Credits)
	}
	reset := "local midnight"
	if e.Period == "month" {
		reset = "the first of the month"
	}
	return msg + " (the cap is " + e.Setting + "; it resets at " + reset + ")"
}

// CheckAgentCap refuses, with a *CapError, a request priced p when the
// credits of today's agent tasks (origin mcp, in this backend's history)
// plus p would pass Config.AgentCreditCap, or when it would pass the daily
// or monthly cap on all spending: an agent has no --over-cap.
func (s *Studio) CheckAgentCap(ctx context.Context, p Price) error {
	if err := s.checkCap(ctx, CapError{Cap: s.Config.AgentCreditCap, Price: p, Scope: "agent work", Period: "day",
		Setting: "the Settings page's agent credit cap, --daily-cap or " + EnvAgentCreditCap}, record.OriginMCP); err != nil {
		return err
	}
	return s.CheckSpendCaps(ctx, p, "")
}

// CheckSpendCaps refuses, with a *CapError, a send priced p (one request,
// or a whole batch or set of variations) when the credits of every task
// sent today, or this month, plus p would pass the daily or monthly cap.
func (s *Studio) CheckSpendCaps(ctx context.Context, p Price, sending string) error {
	if err := s.checkCap(ctx, CapError{Cap: s.Config.DailyCreditCap, Price: p, Period: "day", Sending: sending,
		Setting: "the Settings page's daily credit cap, --daily-cap or " + EnvDailyCreditCap}, ""); err != nil {
		return err
	}
	return s.checkCap(ctx, CapError{Cap: s.Config.MonthlyCreditCap, Price: p, Period: "month", Sending: sending,
		Setting: "the Settings page's monthly credit cap, --monthly-cap or " + EnvMonthlyCreditCap}, "")
}

// Spending is what the tasks of this history cost today and this month.
type Spending struct{ Today, Month int64 }

// Spent reads today's and this month's spending, for the review.
func (s *Studio) Spent(ctx context.Context) (Spending, error) {
	var sp Spending
	var err error
	if sp.Today, err = s.store.CreditsSince(ctx, "", s.periodStart("day")); err != nil {
		return sp, err
	}
	sp.Month, err = s.store.CreditsSince(ctx, "", s.periodStart("month"))
	return sp, err
}

// checkCap is every cap's one check. A price nobody knows (a live service
// with no like task in history) is refused only once the cap is reached:
// the service says what it charged, and that counts from then on.
func (s *Studio) checkCap(ctx context.Context, c CapError, origin record.Origin) error {
	if c.Cap <= 0 || (c.Price.Known && c.Price.Credits == 0) {
		return nil // no cap, or a send that costs nothing
	}
	spent, err := s.store.CreditsSince(ctx, origin, s.periodStart(c.Period))
	if err != nil {
		return fmt.Errorf("not sent: spending could not be read for the credit cap per %s: %w", c.Period, err)
	}
	if spent >= c.Cap || (c.Price.Known && spent+c.Price.Credits > c.Cap) {
		c.Spent = spent
		return &c
	}
	return nil
}

type overCapKey struct{}

// OverCap marks ctx as the person's say-so to send past the credit caps
// (the CLI's --over-cap, the TUI's "send it anyway"): sends under it
// reserve their cost but are not held to the caps.
func OverCap(ctx context.Context) context.Context { return context.WithValue(ctx, overCapKey{}, true) }

func overCap(ctx context.Context) bool { v, _ := ctx.Value(overCapKey{}).(bool); return v }

// budget is what the tracker reserves for a request and the caps it holds
// it to, checked in the transaction that records it: the agent cap for an
// agent's request, the daily and monthly caps for all. So parallel
// senders, in any front end, process or machine of a team, cannot spend
// past a cap between one's check and its send.
func (s *Studio) budget(ctx context.Context, op api.Operation, body map[string]any) (int64, []record.Cap) {
	p := s.Price(op, body)
	var reserve int64
	if p.Known {
		reserve = p.Credits
	}
	if overCap(ctx) || (p.Known && p.Credits == 0) {
		return reserve, nil
	}
	return reserve, s.caps(p.Known, s.opts.Origin)
}

// caps are the credit caps a send from origin is held to: the agent cap
// for an agent's, the daily and monthly caps for all. known says the
// price is known (else only a reached cap refuses).
func (s *Studio) caps(known bool, origin record.Origin) []record.Cap {
	var caps []record.Cap
	add := func(limit int64, period string, of record.Origin) {
		if limit > 0 {
			caps = append(caps, record.Cap{Limit: limit, Since: s.periodStart(period), Origin: of, Period: period, Known: known})
		}
	}
	if origin == record.OriginMCP {
		add(s.Config.AgentCreditCap, "day", record.OriginMCP)
	}
	add(s.Config.DailyCreditCap, "day", "")
	add(s.Config.MonthlyCreditCap, "month", "")
	return caps
}

// capError words a cap the history refused a send priced p by as
// CheckSpendCaps would have.
func (s *Studio) capError(ce *record.CapExceeded, p Price) *CapError {
	c := CapError{Cap: ce.Cap.Limit, Spent: ce.Spent, Price: p, Period: ce.Cap.Period}
	switch {
	case ce.Cap.Origin == record.OriginMCP:
		c.Scope, c.Setting = "agent work", "the Settings page's agent credit cap, --daily-cap or "+EnvAgentCreditCap
	case ce.Cap.Period == "month":
		c.Setting = "the Settings page's monthly credit cap, --monthly-cap or " + EnvMonthlyCreditCap
	default:
		c.Setting = "the Settings page's daily credit cap, --daily-cap or " + EnvDailyCreditCap
	}
	return &c
}

// periodStart is local midnight today, or of the month's first day.
func (s *Studio) periodStart(period string) time.Time {
	now := s.Now()
	y, m, d := now.Date()
	if period == "month" {
		d = 1
	}
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// Now is the studio's clock: the wall clock, or the one a test fixed.
func (s *Studio) Now() time.Time {
	if s.opts.Clock != nil {
		return s.opts.Clock()
	}
	return time.Now()
}

// SpendingFor is what the review shows beside a request's price: today's
// and this month's spending (with the caps, when set), and, when sending
// it would pass a cap, the refusal the CLI would give, for the TUI to ask
// about first. sending names what p prices, as CheckSpendCaps takes it.
func (s *Studio) SpendingFor(ctx context.Context, p Price, sending string) (spent, overCap string) {
	sp, err := s.Spent(ctx)
	if err != nil {
		return "unknown (" + err.Error() + ")", ""
	}
	spent = fmt.Sprintf("%s today%s · %s this month%s",
		textutil.Plural(int(sp.Today), "credit"), ofCap(s.Config.DailyCreditCap),
		textutil.Plural(int(sp.Month), "credit"), ofCap(s.Config.MonthlyCreditCap))
	if err := s.CheckSpendCaps(ctx, p, sending); err != nil {
		overCap = err.Error()
	}
	return spent, overCap
}

func ofCap(limit int64) string {
	if limit <= 0 {
		return ""
	}
	return fmt.Sprintf(" of %d", limit)
}

// CapRoom is one credit cap this studio's sends are held to, as it
// stands: Spent of Cap credits so far this Period.
type CapRoom struct {
	// Scope is "agent work" for the agent cap, "" for all work.
	Scope  string `json:"scope,omitempty"`
	Period string `json:"period"`
	Cap    int64  `json:"cap"`
	Spent  int64  `json:"spent"`
}

// Left is what the cap leaves to spend.
func (c CapRoom) Left() int64 { return max(c.Cap-c.Spent, 0) }

func (c CapRoom) String() string {
	what := "all work"
	if c.Scope != "" {
		what = c.Scope
	}
	when := "today"
	if c.Period == "month" {
		when = "this month"
	}
	return fmt.Sprintf("%s: %s of %d spent %s, %d left", what, textutil.Plural(int(c.Spent), "credit"), c.Cap, when, c.Left())
}

// CapRooms reads the caps this studio's sends are held to (the agent cap
// too when it sends for agents) with what each has spent, reservations
// included; none when no cap is set.
func (s *Studio) CapRooms(ctx context.Context) ([]CapRoom, error) {
	var out []CapRoom
	for _, c := range s.caps(true, s.opts.Origin) {
		spent, err := s.store.CreditsSince(ctx, c.Origin, c.Since)
		if err != nil {
			return nil, fmt.Errorf("spending could not be read for the credit cap per %s: %w", c.Period, err)
		}
		r := CapRoom{Period: c.Period, Cap: c.Limit, Spent: spent}
		if c.Origin == record.OriginMCP {
			r.Scope = "agent work"
		}
		out = append(out, r)
	}
	return out, nil
}
