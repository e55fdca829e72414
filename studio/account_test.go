package studio

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The Settings page reads the account once before switching to a key:
// the error says whether the key or the address failed.
func TestCheckKeySaysWhatFailed(t *testing.T) {
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"code":401,"reason":"Unauthorized","message":"bad token"}`))
	}))
	t.Cleanup(refuse.Close)
	missing := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(missing.Close)
	ctx := context.Background()
	cfg := Config{APIKey: "k-12345678", Timeout: 2 * time.Second}
	for _, c := range []struct {
		base, want string
	}{
		{refuse.URL, "the service refused the API key (Unauthorized 401)"},
		{missing.URL, "answers 404 for the account: is this the service's address?"},
		{"http://127.0.0.1:1", "could not reach http://127.0.0.1:1"},
	} {
		cfg.BaseURL = c.base
		_, err := CheckKey(ctx, cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.base, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), cfg.APIKey) {
			t.Errorf("the key leaked into the message: %v", err)
		}
	}
	cfg.BaseURL = newSandboxServer(t)
	if cr, err := CheckKey(ctx, cfg); err != nil || cr == nil || cr.Remaining <= 0 {
		t.Errorf("a working key: %+v %v", cr, err)
	}
}

func newSandboxServer(t *testing.T) string {
	ts := httptest.NewServer(newSandbox(t, 5))
	t.Cleanup(ts.Close)
	return ts.URL
}
