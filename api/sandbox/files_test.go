package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox/media"
)

func TestImageResultHasTheRequestedShape(t *testing.T) {
	h := newHarness(t, Config{})
	tests := []struct {
		ratio, res string
		w, h       int
	}{
		{"9:16", "2K", 1440, 2560},
		{"16:9", "1080p", 1920, 1080},
		{"1:1", "1080p", 1080, 1080},
		{"21:9", "1080p", 2520, 1080},
	}
	for _, tc := range tests {
		id := h.createID(api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lamp", "aspect_ratio": tc.ratio, "resolution": tc.res})
		r := h.until(id, api.StateSuccess, time.Hour)
		code, b := h.fetch(r.Creations[0].URL)
		if code != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d", tc.ratio, tc.res, code)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width != tc.w || cfg.Height != tc.h {
			t.Errorf("%s %s: PNG %dx%d (%v), want %dx%d", tc.ratio, tc.res, cfg.Width, cfg.Height, err, tc.w, tc.h)
		}
		code, b = h.fetch(r.Creations[0].CoverURL)
		if _, err := jpeg.DecodeConfig(bytes.NewReader(b)); code != http.StatusOK || err != nil {
			t.Errorf("cover: HTTP %d, %v", code, err)
		}
	}
}

func TestAutoRatioFollowsTheFirstImage(t *testing.T) {
	h := newHarness(t, Config{})
	in, err := media.PNG(300, 600, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(in)
	m := h.create(api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "like this", "images": []string{uri}, "aspect_ratio": "auto"})
	if imgs, _ := m["images"].([]any); len(imgs) != 1 || imgs[0] != uri {
		t.Errorf("echo does not repeat the images as sent")
	}
	r := h.until(m["task_id"].(string), api.StateSuccess, time.Hour)
	_, b := h.fetch(r.Creations[0].URL)
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != 1080 || cfg.Height != 2160 {
		t.Errorf("auto from a 1:2 image gave %dx%d (%v), want 1080x2160", cfg.Width, cfg.Height, err)
	}
}

func TestVideoResultIsAnMP4(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpText2Video, sample(api.OpText2Video, map[string]any{"aspect_ratio": "9:16"}))
	r := h.until(id, api.StateSuccess, time.Hour)
	for _, u := range []string{r.Creations[0].URL, r.Creations[0].WatermarkedURL} {
		code, b := h.fetch(u)
		if code != http.StatusOK || len(b) < 12 || string(b[4:8]) != "ftyp" {
			t.Errorf("video: HTTP %d, %d bytes", code, len(b))
		}
	}
}

// wavLevels returns the RMS level of each tenth of a second of a 16-bit mono WAV.
func wavLevels(t *testing.T, b []byte) []float64 {
	t.Helper()
	if string(b[:4]) != "RIFF" {
		t.Fatal("not a WAV")
	}
	rate := int(binary.LittleEndian.Uint32(b[24:28]))
	i := bytes.Index(b, []byte("data"))
	pcm := b[i+8:]
	per := rate / 10
	var out []float64
	for off := 0; off+2*per <= len(pcm); off += 2 * per {
		sum := 0.0
		for k := 0; k < per; k++ {
			v := float64(int16(binary.LittleEndian.Uint16(pcm[off+2*k:]))) / 32768
			sum += v * v
		}
		out = append(out, math.Sqrt(sum/float64(per)))
	}
	return out
}

func TestTimelineAudioPutsEventsWhereAsked(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpTiming2Audio, map[string]any{"model": "audio1.0", "duration": 4,
		"timing_prompts": []map[string]any{{"from": 1, "to": 2, "prompt": "a bell"}, {"from": 3, "to": 3.5, "prompt": "a knock"}}})
	r := h.until(id, api.StateSuccess, time.Hour)
	if float64(r.Duration) != 4 || len(r.TimingPrompts) != 2 || r.Seed == 0 {
		t.Errorf("result echo: duration %v, %d prompts, seed %d", r.Duration, len(r.TimingPrompts), r.Seed)
	}
	code, b := h.fetch(r.Creations[0].URL)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d", code)
	}
	lv := wavLevels(t, b)
	if len(lv) != 40 {
		t.Fatalf("%d tenths of a second, want 40", len(lv))
	}
	for i, l := range lv {
		sec := float64(i) / 10
		in := (sec >= 1.1 && sec < 1.9) || (sec >= 3.1 && sec < 3.4)
		out := sec < 0.9 || (sec >= 2.1 && sec < 2.9) || sec >= 3.6
		if in && l < 0.01 {
			t.Errorf("silent at %.1f s inside an event", sec)
		}
		if out && l > 0.001 {
			t.Errorf("sound at %.1f s outside every event (%.4f)", sec, l)
		}
	}
}

func TestResultURLsExpire(t *testing.T) {
	h := newHarness(t, Config{})
	img := h.createID(api.OpReference2Image, samples[api.OpReference2Image])
	tr := h.createID(api.OpTrendingReplicate, samples[api.OpTrendingReplicate])
	h.until(tr, api.StateSuccess, 2*time.Hour)
	imgURL, trURL := h.get(img).Creations[0].URL, h.get(tr).Creations[0].URL
	if d := expiresIn(t, imgURL, h.clock.Now()); d < 24*time.Hour || d >= 24*time.Hour+time.Second {
		t.Errorf("image URL valid for %s, want 24h", d)
	}

	h.advance(time.Hour - time.Second)
	if code, _ := h.fetch(trURL); code != http.StatusOK {
		t.Errorf("trending URL before an hour: HTTP %d", code)
	}
	h.advance(2 * time.Second)
	if code, _ := h.fetch(trURL); code != http.StatusForbidden {
		t.Errorf("trending URL after an hour: HTTP %d, want 403", code)
	}
	h.advance(23*time.Hour - 2*time.Second)
	if code, _ := h.fetch(imgURL); code != http.StatusOK {
		t.Errorf("image URL before 24 h: HTTP %d", code)
	}
	h.advance(2 * time.Second)
	code, b := h.fetch(imgURL)
	if code != http.StatusForbidden || !strings.Contains(string(b), api.ReasonForbidden) {
		t.Errorf("image URL after 24 h: HTTP %d %s, want 403 Forbidden", code, b)
	}
	// Reading the task again signs afresh.
	fresh := h.get(img).Creations[0].URL
	if code, _ := h.fetch(fresh); fresh == imgURL || code != http.StatusOK {
		t.Errorf("re-read URL: HTTP %d", code)
	}
	for _, forged := range []string{
		strings.Replace(fresh, "sig=", "sig=0", 1),
		strings.Replace(fresh, "exp=", "exp=9", 1),
		strings.Replace(fresh, "/image.png", "/cover.jpg", 1),
	} {
		if code, _ := h.fetch(forged); code != http.StatusForbidden {
			t.Errorf("forged URL %s: HTTP %d, want 403", forged, code)
		}
	}
}
