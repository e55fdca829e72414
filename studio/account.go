package studio

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"clapper/api"
)

// Account reads the account's remaining credits and the service's own
// count of running and queued tasks (GET /ent/v2/credits).
func (s *Studio) Account(ctx context.Context) (*api.Credits, error) {
	return s.client.Credits(ctx)
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
