package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// listed reads a unit's line of GET /_sandbox/tasks.
func (h *harness) listed(id string) listEntry {
	h.t.Helper()
	_, _, raw := h.call(http.MethodGet, "/_sandbox/tasks", nil, nil)
	var list []listEntry
	if err := json.Unmarshal(raw, &list); err != nil {
		h.t.Fatal(err)
	}
	for _, e := range list {
		if e.ID == id {
			return e
		}
	}
	h.t.Fatalf("no unit %s", id)
	return listEntry{}
}

// seconds reads a unit's result length from GET /_sandbox/tasks.
func (h *harness) seconds(id string) float64 {
	h.t.Helper()
	return h.listed(id).Seconds
}

// unit is the sandbox's record of a unit.
func (h *harness) unit(id string) unit {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return *h.srv.st.byID[id]
}

// creationID is the id a unit's creation item will have.
func (h *harness) creationID(id string) string {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return makeID(h.srv.st.Seed, h.srv.st.byID[id].Seq, creationSalt)
}

// setSeconds gives a creation's video another length.
func (h *harness) setSeconds(creation string, secs float64) {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	h.srv.st.byCreation[creation].Seconds = secs
}

// finished makes a task of op and waits for its success.
func (h *harness) finished(op api.Operation, body map[string]any) *api.TaskResult {
	h.t.Helper()
	return h.until(h.createID(op, body), api.StateSuccess, 20*time.Minute)
}

// An extended video is its source and the extension; an upscaled one its
// source's length at the new resolution; each is a video again, to extend
// or upscale once more.
func TestChainedVideosAddUp(t *testing.T) {
	h := newHarness(t, Config{})
	src := h.finished(api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": "a tower", "duration": 6, "resolution": "1080p", "aspect_ratio": "9:16"})
	ext := h.createID(api.OpExtend, map[string]any{"model": "svcq2-pro", "video_creation_id": src.Creations[0].ID, "duration": 7})
	if got := h.seconds(ext); got != 13 {
		t.Errorf("extended video is %v s, want 6 + 7", got)
	}
	extended := h.until(ext, api.StateSuccess, 20*time.Minute)
	// By its URL too: the sandbox knows its own files.
	again := h.createID(api.OpExtend, map[string]any{"model": "svcq2-turbo", "video_url": extended.Creations[0].URL, "duration": 1})
	if got := h.seconds(again); got != 14 {
		t.Errorf("extended twice: %v s, want 14", got)
	}
	up := h.createID(api.OpUpscaleNew, map[string]any{"video_creation_id": extended.Creations[0].ID, "upscale_resolution": "4K"})
	if got := h.seconds(up); got != 13 {
		t.Errorf("upscaled video is %v s, want its source's 13", got)
	}
	upscaled := h.until(up, api.StateSuccess, 20*time.Minute)
	status, hdr, raw := h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": upscaled.Creations[0].ID, "upscale_resolution": "4K"}, nil)
	e := rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "upscale_resolution")
	if !strings.Contains(e.Message, "4K is not above the source video's 4K; choose 8K") {
		t.Errorf("upscale to the same resolution: %s", e.Message)
	}
	// The 1080p source takes 2K, not 1080p.
	status, hdr, raw = h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": src.Creations[0].ID, "upscale_resolution": "1080p"}, nil)
	rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "upscale_resolution")
	h.create(api.OpUpscaleNew, map[string]any{"video_creation_id": src.Creations[0].ID, "upscale_resolution": "2K"})
	// The result keeps its source's shape.
	if u := h.unit(ext); u.Ratio != "9:16" {
		t.Errorf("extended video's ratio %s, want its source's 9:16", u.Ratio)
	}
}

// extend takes a source of 4 s to 1 min, upscale-new one of at most 300 s,
// and only a finished video.
func TestChainedSourcesAreChecked(t *testing.T) {
	h := newHarness(t, Config{})
	short := h.finished(api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []string{img}, "duration": 3})
	four := h.finished(api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []string{img}, "duration": 4})
	status, hdr, raw := h.call(http.MethodPost, api.OpExtend.Path(), map[string]any{"model": "svcq2-pro", "video_creation_id": short.Creations[0].ID}, nil)
	e := rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "video_creation_id")
	if !strings.Contains(e.Message, "is 3 s long; extend takes a video of 4 s to 1 min") {
		t.Errorf("a 3 s source: %s", e.Message)
	}
	h.create(api.OpExtend, map[string]any{"model": "svcq2-pro", "video_creation_id": four.Creations[0].ID})
	// A music video is as long as its song (60 s for a song by URL); its
	// length is set here to meet each bound.
	song := h.finished(api.OpMV, map[string]any{"images": []string{img}, "audio_url": "https://example.com/s.mp3"})
	songID := song.Creations[0].ID
	h.create(api.OpExtend, map[string]any{"model": "svcq2-pro", "video_creation_id": songID})
	h.setSeconds(songID, 60.5)
	status, hdr, raw = h.call(http.MethodPost, api.OpExtend.Path(), map[string]any{"model": "svcq2-pro", "video_creation_id": songID}, nil)
	rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "video_creation_id")
	h.setSeconds(songID, 300)
	h.create(api.OpUpscaleNew, map[string]any{"video_creation_id": songID, "upscale_resolution": "1080p"})
	h.setSeconds(songID, 300.5)
	status, hdr, raw = h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": songID, "upscale_resolution": "1080p"}, nil)
	e = rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "video_creation_id")
	if !strings.Contains(e.Message, "is 300.5 s long; upscale-new takes at most 300 s") {
		t.Errorf("a 300.5 s source: %s", e.Message)
	}
	// Not finished yet, or not a video.
	running := h.create(api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []string{img}})
	status, hdr, raw = h.call(http.MethodPost, api.OpExtend.Path(), map[string]any{"model": "svcq2-pro", "video_creation_id": h.creationID(running["task_id"].(string))}, nil)
	e = rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "video_creation_id")
	if !strings.Contains(e.Message, "has not succeeded") {
		t.Errorf("a running source: %s", e.Message)
	}
	sound := h.finished(api.OpText2Audio, map[string]any{"model": "audio1.0", "prompt": "rain"})
	status, hdr, raw = h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": sound.Creations[0].ID, "upscale_resolution": "4K"}, nil)
	e = rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "video_creation_id")
	if !strings.Contains(e.Message, "made audio, not a video") {
		t.Errorf("an audio source: %s", e.Message)
	}
	// A creation id from elsewhere is taken on trust, as a URL is.
	h.create(api.OpUpscaleNew, map[string]any{"video_creation_id": "907126354123456789", "upscale_resolution": "1080p"})
}

// With both a creation id and a URL the id is used and the URL named as
// ignored; area and beast sent for another template are ignored too.
func TestChainedLeniency(t *testing.T) {
	h := newHarness(t, Config{})
	status, hdr, raw := h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": "907126354123456789", "video_url": "https://example.com/v.mp4", "upscale_resolution": "2K"}, nil)
	if status != http.StatusOK || hdr.Get(IgnoredFieldsHeader) != "video_url" || strings.Contains(string(raw), "example.com") {
		t.Errorf("both sources: HTTP %d, ignored %q: %s", status, hdr.Get(IgnoredFieldsHeader), raw)
	}
	status, hdr, raw = h.call(http.MethodPost, api.OpTemplate2Video.Path(), map[string]any{"template": "subject_3", "images": []string{img}, "area": "auto", "beast": "auto", "prompt": "", "aspect_ratio": "", "seed": 0, "bgm": false}, nil)
	if status != http.StatusOK || hdr.Get(IgnoredFieldsHeader) != "area,beast" {
		t.Errorf("the official MCP server's template body: HTTP %d, ignored %q: %s", status, hdr.Get(IgnoredFieldsHeader), raw)
	}
	status, hdr, _ = h.call(http.MethodPost, api.OpTemplate2Video.Path(), map[string]any{"template": "exotic_princess", "images": []string{img}, "area": "japan", "prompt": "a walk"}, nil)
	if status != http.StatusOK || hdr.Get(IgnoredFieldsHeader) != "" {
		t.Errorf("exotic_princess with its area: HTTP %d, ignored %q", status, hdr.Get(IgnoredFieldsHeader))
	}
}

// Results of the new operations: videos of the asked shape, a sound as
// long as asked; prices as the package doc lists them.
func TestNewOperationResultsAndPrices(t *testing.T) {
	h := newHarness(t, Config{})
	sound := h.finished(api.OpText2Audio, map[string]any{"model": "audio1.0", "prompt": "birds at dawn", "duration": 6.5})
	if len(sound.Creations) != 1 || sound.Creations[0].CoverURL != "" {
		t.Fatalf("text2audio creations: %+v", sound.Creations)
	}
	status, wav := h.fetch(sound.Creations[0].URL)
	if secs, err := catalog.WAVDuration(wav); status != http.StatusOK || err != nil || secs < 6.49 || secs > 6.51 {
		t.Errorf("text2audio WAV: HTTP %d, %v s, %v", status, secs, err)
	}
	mf := h.finished(api.OpMultiframe, samples[api.OpMultiframe])
	status, mp4 := h.fetch(mf.Creations[0].URL)
	if status != http.StatusOK || !strings.Contains(string(mp4[:12]), "ftyp") || mf.Creations[0].WatermarkedURL == "" {
		t.Errorf("multiframe result: HTTP %d, %+v", status, mf.Creations[0])
	}
	tpl := h.finished(api.OpTemplate2Video, map[string]any{"template": "subject_3", "images": []string{img}, "aspect_ratio": "9:16"})
	if h.unit(tpl.ID).Ratio != "9:16" {
		t.Error("template video ignores its aspect ratio")
	}
	for _, c := range []struct {
		op   api.Operation
		body map[string]any
		want int
	}{
		{api.OpExtend, map[string]any{"model": "svcq2-pro", "video_url": "https://example.com/v.mp4", "duration": 4, "resolution": "1080p"}, 36}, // 6 x 4 x 1.5
		{api.OpExtend, map[string]any{"model": "svcq2-turbo", "video_url": "https://example.com/v.mp4"}, 20},                                     // 4 x 5
		{api.OpMultiframe, samples[api.OpMultiframe], 28},                                                                                        // 4 x (3 + 4)
		{api.OpUpscaleNew, map[string]any{"video_url": "https://example.com/v.mp4", "upscale_resolution": "8K"}, 50},
		{api.OpText2Audio, map[string]any{"model": "audio1.0", "prompt": "rain", "duration": 2.5}, 5},
		{api.OpTemplate2Video, samples[api.OpTemplate2Video], 25},
	} {
		if got := h.create(c.op, c.body)["credits"]; got != float64(c.want) {
			t.Errorf("%s %v: %v credits, want %d", c.op, c.body, got, c.want)
		}
	}
}

// A video at the top resolution (8K) takes no upscale at all: the refusal
// says so and offers no resolution to choose.
func TestUpscaleOfAnEightKVideoOffersNothing(t *testing.T) {
	h := newHarness(t, Config{})
	src := h.finished(api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": "a tower", "duration": 6, "resolution": "1080p"})
	top := h.until(h.createID(api.OpUpscaleNew, map[string]any{"video_creation_id": src.Creations[0].ID, "upscale_resolution": "8K"}),
		api.StateSuccess, 20*time.Minute)
	status, hdr, raw := h.call(http.MethodPost, api.OpUpscaleNew.Path(), map[string]any{"video_creation_id": top.Creations[0].ID, "upscale_resolution": "8K"}, nil)
	e := rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonFieldInvalid, "upscale_resolution")
	if want := "upscale_resolution: 8K is not above the source video's 8K"; e.Message != want {
		t.Errorf("upscale of an 8K video: %q, want %q", e.Message, want)
	}
}
