package studio_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// The sandbox's quote follows the resolution (a 1080p video costs more than
// a 720p one, 540p less) and is what the sandbox then charges.
func TestSandboxQuoteFollowsResolutionAndIsCharged(t *testing.T) {
	isolated(t)
	s := openSandbox(t, resolved(t, studio.Config{}), sandbox.NewFakeClock(wiringT0))
	var prices []int64
	for _, res := range []string{"540p", "720p", "1080p"} {
		body := map[string]any{"model": "svcq3-pro", "prompt": "a fox", "duration": 8, "resolution": res}
		p := s.Price(api.OpText2Video, body)
		sub, err := s.Submit(context.Background(), api.OpText2Video, body)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Known || p.Credits != int64(sub.Task.Credits) {
			t.Errorf("%s: quoted %+v, charged %d", res, p, sub.Task.Credits)
		}
		prices = append(prices, p.Credits)
	}
	if !(prices[0] < prices[1] && prices[1] < prices[2]) {
		t.Errorf("quotes by resolution 540p, 720p, 1080p: %v; want rising", prices)
	}
}

// The live quote is what the same request cost last time: a different
// resolution is a different request; an unset one is its default (720p).
func TestLiveQuoteTellsResolutionsApart(t *testing.T) {
	isolated(t)
	cfg := resolved(t, studio.Config{APIKey: "key-0123456789", BaseURL: "http://127.0.0.1:9"})
	s, err := studio.Open(context.Background(), cfg, studio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for i, past := range []struct {
		res     string
		credits int64
	}{{"720p", 40}, {"1080p", 60}} {
		req := fmt.Sprintf(`{"model":"svcq3-pro","prompt":"a","duration":8,"resolution":%q}`, past.res)
		id, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Model: "svcq3-pro", Body: []byte(req)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record().MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: fmt.Sprint("t", i), State: api.StateSuccess, Credits: past.credits, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	for res, want := range map[string]string{"1080p": "60 credits", "720p": "40 credits", "": "40 credits", "540p": "unknown"} {
		body := map[string]any{"model": "svcq3-pro", "prompt": "b", "duration": 8}
		if res != "" {
			body["resolution"] = res
		}
		if q := s.Quote(api.OpText2Video, body); !strings.HasPrefix(q, want) {
			t.Errorf("resolution %q: quote %q, want %s", res, q, want)
		}
	}
}
