package studio

import (
	"context"
	"fmt"
	"time"

	"clapper/history"
	"clapper/internal/textutil"
)

// CapError refuses a send that would take the day's agent spending past
// the configured cap. Nothing was sent.
type CapError struct {
	Cap   int64 // credits per day
	Spent int64 // credits agent tasks cost today
	Price Price // this request's expected cost
}

func (e *CapError) Error() string {
	msg := fmt.Sprintf("not sent: the daily credit cap for agent work is %s and agent tasks have cost %s today",
		textutil.Plural(int(e.Cap), "credit"), textutil.Plural(int(e.Spent), "credit"))
	if e.Price.Known {
		msg += fmt.Sprintf("; this request costs %d more", e.Price.Credits)
	}
	return msg + " (the cap is the Settings page's agent credit cap, --daily-cap or " + EnvAgentCreditCap + "; it resets at local midnight)"
}

// CheckAgentCap refuses, with a *CapError, a request priced p when the
// credits of today's agent tasks (origin mcp, in this backend's history)
// plus p would pass Config.AgentCreditCap. A price nobody knows (a live
// service with no like task in history) is refused only once the cap is
// reached: the service says what it charged, and that counts from then on.
func (s *Studio) CheckAgentCap(ctx context.Context, p Price) error {
	limit := s.Config.AgentCreditCap
	if limit <= 0 {
		return nil
	}
	now := s.now()
	y, m, d := now.Date()
	spent, err := s.Store.CreditsSince(ctx, history.OriginMCP, time.Date(y, m, d, 0, 0, 0, 0, now.Location()))
	if err != nil {
		return fmt.Errorf("not sent: today's agent spending could not be read for the credit cap: %w", err)
	}
	if spent >= limit || (p.Known && spent+p.Credits > limit) {
		return &CapError{Cap: limit, Spent: spent, Price: p}
	}
	return nil
}

func (s *Studio) now() time.Time {
	if s.opts.Clock != nil {
		return s.opts.Clock()
	}
	return time.Now()
}
