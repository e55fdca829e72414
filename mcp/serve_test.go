package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/studio"
)

func TestHTTPIsServedOnTheLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.10:8765", ":8765", "example.com:80", "nonsense"} {
		ln, err := listenLoopback(addr)
		if err == nil {
			ln.Close()
			t.Errorf("%s: served; want refused", addr)
			continue
		}
		if !studio.IsUsage(err) || !strings.Contains(err.Error(), "--http") {
			t.Errorf("%s: %v", addr, err)
		}
	}
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPNeedsTheBearerToken(t *testing.T) {
	r := newRig(t, rigOpts{})
	ts := httptest.NewServer(r.srv.HTTPHandler("s3cret"))
	defer ts.Close()
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Bearer s3cret2"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, res.StatusCode)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 24 {
		t.Fatalf("tools over HTTP: %v", err)
	}
}
