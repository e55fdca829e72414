package studio

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// accountEvery is how often a team's poller reads the account for every
// machine; accountFresh how old a kept read may be before a machine that
// is not the poller reads the service itself (the poller may have gone).
const (
	accountEvery = time.Minute
	accountFresh = 2 * accountEvery
)

// Account reads the account's remaining credits and the service's own
// count of running and queued tasks (GET /ent/v2/credits). On a team's
// database one machine reads it, the poller, and keeps the read in the
// history: the others show that read while it is fresh, as they show the
// tasks the poller reads.
func (s *Studio) Account(ctx context.Context) (*api.Credits, error) {
	if !s.Config.Team() {
		return s.client.Credits(ctx)
	}
	if s.watcher == nil || !s.watcher.Leading() {
		r, ok, err := s.store.AccountRead(ctx, s.Config.Account())
		if err == nil && ok && s.Now().Sub(r.ReadAt) < accountFresh {
			return &api.Credits{Remaining: int(r.Remaining), HasConcurrency: r.HasConcurrency,
				Running: int(r.Running), Queued: int(r.Queued), Limit: int(r.Limit)}, nil
		}
	}
	c, err := s.client.Credits(ctx)
	if err != nil {
		return nil, err
	}
	s.keepAccountRead(ctx, c, s.Now())
	return c, nil
}

// keepAccountRead keeps a read of the account in a team's history for the
// other machines; best effort: a read that cannot be kept is still shown
// here.
func (s *Studio) keepAccountRead(ctx context.Context, c *api.Credits, at time.Time) {
	_ = s.store.SaveAccountRead(ctx, record.AccountRead{Account: s.Config.Account(), Remaining: int64(c.Remaining),
		HasConcurrency: c.HasConcurrency, Running: int64(c.Running), Queued: int64(c.Queued), Limit: int64(c.Limit), ReadAt: at})
}

// readAccountWhilePolling reads the account every accountEvery while this
// studio holds the poller's lease, for the team's other machines.
func (s *Studio) readAccountWhilePolling(ctx context.Context) {
	t := time.NewTicker(accountEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.watcher.Leading() {
			s.Account(ctx)
		}
	}
}

// CheckKey makes the one cheap read that tells whether a live
// configuration's address and key work, before anything switches to it.
// The error says what failed: the address, the key, or the service.
func CheckKey(ctx context.Context, cfg Config) (*api.Credits, error) {
	if !cfg.Live() {
		return nil, nil
	}
	c, err := api.NewClient(cfg.BaseURL, cfg.APIKey, api.WithTimeout(cfg.Timeout), api.WithRetry(api.RetryPolicy{Attempts: 1}))
	if err != nil {
		return nil, fmt.Errorf("service address: %w", err)
	}
	cr, err := c.Credits(ctx)
	var e *api.Error
	switch {
	case err == nil:
		return cr, nil
	case errors.As(err, &e) && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden):
		return nil, fmt.Errorf("the service refused the API key (%s %d): check it and save again", e.Reason, e.Status)
	case errors.As(err, &e) && e.Status == http.StatusNotFound:
		return nil, fmt.Errorf("%s answers 404 for the account: is this the service's address?", cfg.BaseURL)
	case errors.As(err, &e):
		return nil, fmt.Errorf("the service could not check the key: %w", err)
	}
	return nil, fmt.Errorf("could not reach %s: %w", cfg.BaseURL, err)
}

// UsualTime is how long a task of op and model usually takes from its
// creation to its result: the median of the history's latest successes
// (samples of them), else the built-in guess at the backend's pace
// (samples 0).
func (s *Studio) UsualTime(ctx context.Context, op api.Operation, model string) (time.Duration, int) {
	if u, err := s.store.UsualDuration(ctx, op, model); err == nil && u.Samples > 0 {
		return u.Median, u.Samples
	}
	d := track.Prior(op)
	if s.Sandbox() && s.Config.SandboxSpeed > 1 {
		d = time.Duration(float64(d) / s.Config.SandboxSpeed)
	}
	return d, 0
}
