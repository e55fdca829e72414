package sandbox

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"clapper/api"
)

// jobUntil advances until the job reaches state.
func (h *harness) jobUntil(id, state string, limit time.Duration) *api.OneClickJob {
	h.t.Helper()
	for waited := time.Duration(0); ; waited += 5 * time.Second {
		j, err := h.client.GetOneClick(h.t.Context(), id)
		if err != nil {
			h.t.Fatal(err)
		}
		if j.State == state {
			return j
		}
		if waited > limit {
			h.t.Fatalf("job %s is %s after %s, want %s", id, j.State, waited, state)
		}
		h.advance(5 * time.Second)
	}
}

// expiresIn reads a signed URL's expiry relative to now.
func expiresIn(t *testing.T, raw string, now time.Time) time.Duration {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := strconv.ParseInt(u.Query().Get("exp"), 10, 64)
	if err != nil {
		t.Fatalf("URL %s has no expiry", raw)
	}
	return time.Unix(exp, 0).Sub(now)
}

func TestMultiSceneCreateEditComposeGet(t *testing.T) {
	h := newHarness(t, Config{})
	rc := newReceiver(t, h.clock, http.StatusOK)
	id := h.createID(api.OpGeneralOneClick, sample(api.OpGeneralOneClick, map[string]any{"callback_url": rc.srv.URL}))

	j, err := h.client.GetOneClick(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != api.StateCreated || j.Type != "one_click" || j.SignedURL != "" {
		t.Errorf("new job = %+v", j)
	}
	// 25 s: three scenes (9, 8, 8 s) and the composition record.
	if len(j.JobRecords) != 4 || j.JobRecords[3].Type != api.RecordCompose {
		t.Fatalf("records = %+v", j.JobRecords)
	}
	total := 0
	for i, rec := range j.JobRecords[:3] {
		if rec.Type != api.RecordGenerateVideo || int(rec.Index) != i || len(rec.Jobs) != 1 {
			t.Fatalf("scene record %d = %+v", i, rec)
		}
		in := rec.Jobs[0].MVGenerateVideoInput
		if in == nil || in.Prompt == "" {
			t.Fatalf("scene %d lacks mv_generate_video_input", i)
		}
		total += int(in.Duration)
	}
	if total != 25 {
		t.Errorf("scenes last %d s, want 25", total)
	}

	j = h.jobUntil(id, api.StateSuccess, time.Hour)
	if d := expiresIn(t, j.SignedURL, h.clock.Now()); d <= 0 || d >= 3*time.Minute {
		t.Errorf("signed_url valid for %s, want under 3 minutes", d)
	}
	if code, _ := h.fetch(j.SignedURL); code != http.StatusOK {
		t.Errorf("signed_url: HTTP %d", code)
	}
	for _, rec := range j.JobRecords {
		if rec.Jobs[0].State != api.StateSuccess || rec.Jobs[0].SignedURL == "" {
			t.Errorf("record %s %d: %+v", rec.Type, rec.Index, rec.Jobs[0])
		}
	}
	old := j.SignedURL
	h.advance(3 * time.Minute)
	if code, _ := h.fetch(old); code != http.StatusForbidden {
		t.Errorf("signed_url after 3 minutes: HTTP %d, want 403", code)
	}

	// Edit scene 1: a new version joins its history.
	scene1 := j.JobRecords[1].Jobs[0].ID
	edited, err := h.client.EditScene(t.Context(), id, api.EditSceneRequest{JobID: scene1, Prompt: "at sunset"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.client.EditScene(t.Context(), id, api.EditSceneRequest{JobID: scene1, Prompt: "again"})
	if e, ok := api.AsError(err); !ok || e.Reason != api.ReasonOperationInProcess {
		t.Errorf("editing a running scene: %v", err)
	}
	j, _ = h.client.GetOneClick(t.Context(), id)
	if j.State != api.StateProcessing {
		t.Errorf("job during an edit is %s", j.State)
	}
	hist := j.JobRecords[1].Jobs
	if len(hist) != 2 || hist[1].ID != edited || hist[1].MVGenerateVideoInput.Prompt != "at sunset" {
		t.Fatalf("scene 1 history = %+v", hist)
	}
	h.until(edited, api.StateSuccess, time.Hour)

	composed, err := h.client.Compose(t.Context(), id, api.ComposeRequest{JobIDs: []string{edited}})
	if err != nil {
		t.Fatal(err)
	}
	j = h.jobUntil(id, api.StateSuccess, time.Hour)
	comp := j.JobRecords[3].Jobs
	if len(comp) != 2 || comp[1].ID != composed || comp[1].State != api.StateSuccess {
		t.Fatalf("compose history = %+v", comp)
	}
	if u, _ := url.Parse(j.SignedURL); u == nil || u.Path != filesPrefix+composed+"/"+fileVideo {
		t.Errorf("signed_url %s is not the new composition's", j.SignedURL)
	}

	// Every id reads through the generic path too.
	for _, x := range []string{id, scene1, edited, composed} {
		if r := h.get(x); r.State != api.StateSuccess || len(r.Creations) != 1 {
			t.Errorf("creations of %s = %+v", x, r)
		}
	}
	if r := h.get(id); int(r.Credits) != 4*25+4*8 {
		t.Errorf("job credits %d, want creation plus the edit", r.Credits)
	}
	// The job's callbacks follow its states; the edit and compose had none.
	want := []string{api.StateProcessing, api.StateSuccess, api.StateProcessing, api.StateSuccess, api.StateProcessing, api.StateSuccess}
	if got := rc.states(); !slices.Equal(got, want) {
		t.Errorf("job callbacks %v, want %v", got, want)
	}
}

func TestMultiSceneRejections(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpGeneralOneClick, samples[api.OpGeneralOneClick])
	base := api.OpGeneralOneClick.Path() + "/" + id
	tests := []struct {
		path          string
		body          any
		status        int
		reason, field string
	}{
		{base + "/edit", map[string]any{"job_id": "999", "prompt": "x"}, 400, api.ReasonFieldInvalid, "job_id"},
		{base + "/edit", map[string]any{"prompt": "x"}, 400, api.ReasonFieldLacking, "job_id"},
		{base + "/compose", map[string]any{"job_ids": []string{}}, 400, "", "job_ids"},
		{base + "/compose", map[string]any{"job_ids": []string{"999"}}, 400, "", "job_ids"},
		{api.OpGeneralOneClick.Path() + "/123/edit", map[string]any{"job_id": "1", "prompt": "x"}, 404, api.ReasonTaskNotFound, "id"},
	}
	for _, tc := range tests {
		status, hdr, raw := h.call(http.MethodPost, tc.path, tc.body, nil)
		rejection(t, status, hdr, raw, tc.status, tc.reason, tc.field)
	}
	// A scene that is not done cannot be composed.
	j, _ := h.client.GetOneClick(t.Context(), id)
	status, hdr, raw := h.call(http.MethodPost, base+"/compose", map[string]any{"job_ids": []string{j.JobRecords[0].Jobs[0].ID}}, nil)
	rejection(t, status, hdr, raw, 400, api.ReasonOperationInProcess, "job_ids")
	// A task id is not a job.
	task := h.createID(api.OpText2Video, samples[api.OpText2Video])
	status, hdr, raw = h.call(http.MethodGet, api.OpGeneralOneClick.Path()+"/"+task, nil, nil)
	rejection(t, status, hdr, raw, 404, api.ReasonTaskNotFound, "id")
}

func TestMultiSceneFailure(t *testing.T) {
	h := newHarness(t, Config{FailRate: 1})
	id := h.createID(api.OpGeneralOneClick, samples[api.OpGeneralOneClick])
	j := h.jobUntil(id, api.StateFailed, time.Hour)
	if j.ErrCode == "" || j.ErrMsg == "" || j.SignedURL != "" {
		t.Errorf("failed job = %+v", j)
	}
	if r := h.get(id); r.State != api.StateFailed || r.Credits != 0 {
		t.Errorf("failed job result = %+v", r)
	}
}
