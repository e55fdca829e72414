package cli

import (
	"context"
	"errors"

	"clapper/api"
)

// connect returns a client for the configured service.
func (app *App) connect(ctx context.Context) (*api.Client, func(), error) {
	cfg := app.Config
	if cfg.APIKey == "" {
		return nil, nil, errors.New("no API key: set " + EnvAPIKey + " and " + EnvBaseURL + " (or --api-key and --base-url)")
	}
	c, err := api.NewClient(cfg.BaseURL, cfg.APIKey, api.WithTimeout(cfg.Timeout))
	if err != nil {
		return nil, nil, err
	}
	return c, func() {}, nil
}
