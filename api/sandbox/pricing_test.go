package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clapper/api"
)

func TestPricingTable(t *testing.T) {
	n := func(v int) json.Number { return number(int64(v)) }
	tests := []struct {
		name string
		op   api.Operation
		p    map[string]any
		song float64
		want int
	}{
		{"video 5 s 720p", api.OpText2Video, map[string]any{"model": "svcq3-turbo", "duration": n(5), "resolution": "720p"}, 0, 25},
		{"video off-peak", api.OpText2Video, map[string]any{"model": "svcq3-turbo", "duration": n(5), "resolution": "720p", "off_peak": true}, 0, 13},
		{"video 1080p", api.OpText2Video, map[string]any{"model": "svcq3-turbo", "duration": n(5), "resolution": "1080p"}, 0, 38},
		{"longer video", api.OpText2Video, map[string]any{"model": "svcq3-turbo", "duration": n(10), "resolution": "720p"}, 0, 50},
		{"is_rec", api.OpImg2Video, map[string]any{"model": "svcq1", "duration": n(5), "resolution": "1080p", "is_rec": true}, 0, 48},
		{"svcq4 4K", api.OpReference2Video, map[string]any{"model": "svcq4-preview", "duration": n(5), "resolution": "4K"}, 0, 150},
		// Issue 30: svc2.0 at 4 a second and half at 360p; svcq3-pro at 2K.
		{"svc2.0 4 s 360p", api.OpImg2Video, map[string]any{"model": "svc2.0", "duration": n(4), "resolution": "360p"}, 0, 8},
		{"svc2.0 8 s 720p", api.OpReference2Video, map[string]any{"model": "svc2.0", "duration": n(8), "resolution": "720p"}, 0, 32},
		{"svcq3-pro 2K", api.OpImg2Video, map[string]any{"model": "svcq3-pro", "duration": n(5), "resolution": "2K"}, 0, 80},
		{"image 4K", api.OpReference2Image, map[string]any{"model": "svcq2", "resolution": "4K"}, 0, 10},
		{"tts", api.OpAudioTTS, map[string]any{"text": strings.Repeat("a", 250)}, 0, 3},
		{"clone with preview", api.OpAudioClone, map[string]any{"text": "hi"}, 0, 51},
		{"timeline", api.OpTiming2Audio, map[string]any{"duration": n(5)}, 0, 10},
		{"mv lip sync", api.OpMV, map[string]any{"lip_sync": true, "resolution": "720p"}, 60, 420},
		{"mv lip sync beyond 3 min is free", api.OpMV, map[string]any{"lip_sync": true, "resolution": "720p"}, 200, 600},
		{"premium mv", api.OpPremiumMV, map[string]any{"resolution": "1080p"}, 60, 720},
		{"trending", api.OpTrendingReplicate, map[string]any{"quality": "high", "resolution": "1080p"}, 0, 90},
		{"multi-scene", api.OpGeneralOneClick, map[string]any{"duration": n(25)}, 0, 100},
		{"lip-sync", api.OpLipSync, map[string]any{}, 0, 30},
		{"template", api.OpTemplateStory, map[string]any{}, 0, 40},
	}
	for _, tc := range tests {
		if got := price(tc.op, tc.p, tc.song); got != tc.want {
			t.Errorf("%s: %d credits, want %d", tc.name, got, tc.want)
		}
	}
}

func TestCreditsAreEchoedAndReported(t *testing.T) {
	h := newHarness(t, Config{})
	m := h.create(api.OpText2Video, sample(api.OpText2Video, map[string]any{"model": "svcq3-turbo"}))
	if m["credits"] != 25.0 {
		t.Errorf("echo credits %v, want 25", m["credits"])
	}
	r := h.until(m["task_id"].(string), api.StateSuccess, time.Hour)
	if r.Credits != 25 {
		t.Errorf("result credits %d", r.Credits)
	}
}

// BenchmarkCreateAndGet measures a creation followed by a read, the clock
// moving on so that tasks also finish as they would under load.
func BenchmarkCreateAndGet(b *testing.B) {
	clock := NewFakeClock(t0)
	srv, err := New(Config{Clock: clock, Seed: 1, Speed: 1000})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	body, _ := json.Marshal(samples[api.OpText2Video])
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, api.OpText2Video.Path(), bytes.NewReader(body))
		req.Header.Set("Authorization", "Token "+testToken)
		srv.ServeHTTP(w, req)
		var echo struct {
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &echo); err != nil || echo.TaskID == "" {
			b.Fatalf("create: %s", w.Body.Bytes())
		}
		w = httptest.NewRecorder()
		req = httptest.NewRequest(http.MethodGet, "/ent/v2/tasks/"+echo.TaskID+"/creations", nil)
		req.Header.Set("Authorization", "Token "+testToken)
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("get: HTTP %d", w.Code)
		}
		clock.Advance(100 * time.Millisecond)
	}
}
