package sandbox_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/api/sandbox"
)

// The defaults the spec states, each from its own sentence: a request that
// leaves the field out is created with the default, as the sandbox echoes
// it and as catalog.WithDefaults fills it for the review.
func TestSpecDefaults(t *testing.T) {
	img := `"https://example.com/a.png"`
	r2v := func(m string) string { return `{"model":"` + m + `","prompt":"p","images":[` + img + `]}` }
	cases := []struct {
		spec  string
		op    api.Operation
		req   string
		field string
		want  any
	}{
		// reference2video model table: "duration (default; range)", "resolution (default; options)".
		{"svcq1 duration 5", api.OpReference2Video, r2v("svcq1"), "duration", 5.0},
		{"svcq2 duration 5", api.OpReference2Video, r2v("svcq2"), "duration", 5.0},
		{"svcq2-pro duration 5", api.OpReference2Video, r2v("svcq2-pro"), "duration", 5.0},
		{"svcq3 duration 5", api.OpReference2Video, r2v("svcq3"), "duration", 5.0},
		{"svcq3-turbo duration 5", api.OpReference2Video, r2v("svcq3-turbo"), "duration", 5.0},
		{"svcq3-drama duration 8", api.OpReference2Video, r2v("svcq3-drama"), "duration", 8.0},
		{"svcq3-mix duration 5", api.OpReference2Video, r2v("svcq3-mix"), "duration", 5.0},
		{"svcq3-ad duration 5", api.OpReference2Video, r2v("svcq3-ad"), "duration", 5.0},
		{"svcq4-preview duration 5", api.OpReference2Video, r2v("svcq4-preview"), "duration", 5.0},
		{"svcq1 resolution 1080p", api.OpReference2Video, r2v("svcq1"), "resolution", "1080p"},
		{"svcq2 resolution 720p", api.OpReference2Video, r2v("svcq2"), "resolution", "720p"},
		{"svcq3-drama resolution 1080p", api.OpReference2Video, r2v("svcq3-drama"), "resolution", "1080p"},
		{"svcq4-preview resolution 720p", api.OpReference2Video, r2v("svcq4-preview"), "resolution", "720p"},
		// "aspect_ratio ... default 16:9".
		{"reference2video aspect 16:9", api.OpReference2Video, r2v("svcq3"), "aspect_ratio", "16:9"},
		// img2video: "svcq3 family default 5"; "svcq1 and svcq1-classic default 5"; resolution defaults.
		{"img2video svcq3-pro-fast duration 5", api.OpImg2Video, `{"model":"svcq3-pro-fast","images":[` + img + `]}`, "duration", 5.0},
		{"img2video svcq3-pro-fast resolution 720p", api.OpImg2Video, `{"model":"svcq3-pro-fast","images":[` + img + `]}`, "resolution", "720p"},
		{"img2video svcq1 resolution 1080p", api.OpImg2Video, `{"model":"svcq1","images":[` + img + `]}`, "resolution", "1080p"},
		{"img2video svcq1-classic duration 5", api.OpImg2Video, `{"model":"svcq1-classic","images":[` + img + `]}`, "duration", 5.0},
		// text2video: "svcq3 family: default 5"; "default 720p"; "default 16:9".
		{"text2video svcq3-turbo duration 5", api.OpText2Video, `{"model":"svcq3-turbo","prompt":"p"}`, "duration", 5.0},
		{"text2video svcq3-pro resolution 720p", api.OpText2Video, `{"model":"svcq3-pro","prompt":"p"}`, "resolution", "720p"},
		{"text2video svcq1 aspect 16:9", api.OpText2Video, `{"model":"svcq1","prompt":"p"}`, "aspect_ratio", "16:9"},
		// start-end2video: "svcq3 family default 5"; resolution "default 720p".
		{"start-end2video svcq3-pro duration 5", api.OpStartEnd2Video, `{"model":"svcq3-pro","images":[` + img + `,` + img + `]}`, "duration", 5.0},
		// reference2image: "svcq2: default 1080p"; "default 16:9".
		{"reference2image svcq2 resolution 1080p", api.OpReference2Image, `{"model":"svcq2","prompt":"p"}`, "resolution", "1080p"},
		{"reference2image svcq1 aspect 16:9", api.OpReference2Image, `{"model":"svcq1","prompt":"p","images":[` + img + `]}`, "aspect_ratio", "16:9"},
		// timing2audio: "duration ... default 10".
		{"timing2audio duration 10", api.OpTiming2Audio, `{"model":"audio1.0","timing_prompts":[{"from":0,"to":1,"prompt":"a door"}]}`, "duration", 10.0},
		// trending-replicate: "resolution default 1080p".
		{"trending-replicate resolution 1080p", api.OpTrendingReplicate, `{"video_url":"https://example.com/v.mp4"}`, "resolution", "1080p"},
	}
	srv, err := sandbox.New(sandbox.Config{Clock: sandbox.NewFakeClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)), Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			if got := catalog.WithDefaults(c.op, decode(t, c.req))[c.field]; fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("WithDefaults fills %s = %v, want %v", c.field, got, c.want)
			}
			req, _ := http.NewRequest(http.MethodPost, ts.URL+c.op.Path(), bytes.NewReader([]byte(c.req)))
			req.Header.Set("Authorization", "Token "+sandbox.EmbeddedToken)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var echo map[string]any
			json.NewDecoder(res.Body).Decode(&echo)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("created with %d: %v", res.StatusCode, echo)
			}
			// The creation response echoes the field (see each operation's Response).
			if got, ok := echo[c.field]; !ok || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("the sandbox created it with %s = %v, want %v", c.field, got, c.want)
			}
		})
	}
}
