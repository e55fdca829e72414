package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func states(evs []record.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.From+">"+e.To)
	}
	return out
}

func mustBegin(t *testing.T, s *Store, body string) int64 {
	t.Helper()
	id, err := s.BeginSubmit(context.Background(), record.Intent{Operation: api.OpText2Video, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestBeginSubmitRecordsIntent(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	img := bytes.Repeat([]byte{7}, 4096)
	body := `{"model":"svcq2","prompt":"kite","payload":"ref-9","off_peak":true,
		"images":["data:image/webp;base64,` + base64.StdEncoding.EncodeToString(img) + `"]}`
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpImg2Video, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.State != record.StateSubmitting || task.TaskID != "" || task.Operation != api.OpImg2Video ||
		task.Model != "svcq2" || task.Prompt != "kite" || task.Payload != "ref-9" || !task.Pending {
		t.Errorf("intent row: %+v", task)
	}
	if !task.OffPeak || !task.OffPeakDeadline.Equal(clk.Now().Add(48*time.Hour)) {
		t.Errorf("off-peak %v deadline %v", task.OffPeak, task.OffPeakDeadline)
	}
	if bytes.Contains(task.Request, []byte("base64")) || len(task.Request) > 300 {
		t.Errorf("stored request still carries the data URI: %s", task.Request)
	}
	// Stored as text, so SQLite's JSON functions read it (a BLOB would be
	// taken for JSONB).
	if backend != "postgres" { // a TEXT column there: nothing else can be stored
		var typ string
		if err := s.r.QueryRowContext(ctx, `SELECT typeof(request) FROM tasks WHERE id = ?`, id).Scan(&typ); err != nil || typ != "text" {
			t.Errorf("request stored as %q (%v)", typ, err)
		}
	}
	if len(task.Media) != 1 || task.Media[0].Bytes != 4096 || task.Media[0].SHA256 != sum(img) ||
		task.Media[0].Path != "$.images[0]" {
		t.Errorf("media refs: %+v", task.Media)
	}
	pending, err := s.PendingBody(ctx, id)
	if err != nil || string(pending) != body {
		t.Errorf("pending body is not the exact original (%v)", err)
	}
	if got := states(task.Events); !slices.Equal(got, []string{">submitting"}) {
		t.Errorf("events %v", got)
	}
	if !task.CreatedAt.Equal(clk.Now()) {
		t.Errorf("created %v, want %v", task.CreatedAt, clk.Now())
	}
}

func TestBeginSubmitModelAndPrompt(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		in        record.Intent
		model     string
		prompt    string
		wantError bool
	}{
		{"intent model wins", record.Intent{Operation: api.OpText2Video, Model: "svcq1", Body: []byte(`{"model":"other","prompt":"p"}`)}, "svcq1", "p", false},
		{"story", record.Intent{Operation: api.OpTemplateStory, Body: []byte(`{"story":"hug","images":[]}`)}, "", "hug", false},
		{"tts text", record.Intent{Operation: api.OpAudioTTS, Body: []byte(`{"text":"hello there","voice_setting_voice_id":"v"}`)}, "", "hello there", false},
		{"timing prompts", record.Intent{Operation: api.OpTiming2Audio, Body: []byte(`{"model":"audio1.0","timing_prompts":[{"from":0,"to":1,"prompt":"bell"},{"from":1,"to":2,"prompt":"rain"}]}`)}, "audio1.0", "bell | rain", false},
		{"not JSON", record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":`)}, "", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := s.BeginSubmit(ctx, c.in)
			if c.wantError {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			task, err := s.Task(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if task.Model != c.model || task.Prompt != c.prompt {
				t.Errorf("model %q prompt %q, want %q %q", task.Model, task.Prompt, c.model, c.prompt)
			}
		})
	}
}

func TestMarkSubmitted(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	yes := true
	id := mustBegin(t, s, `{"prompt":"p","off_peak":false}`)
	clk.Advance(2 * time.Second)
	serviceCreated := t0.Add(time.Second)
	echo := record.SubmittedEcho{TaskID: "tk-1", Credits: 30, CreatedAt: serviceCreated, OffPeak: &yes, Raw: []byte(`{"task_id":"tk-1","state":"created"}`)}
	if err := s.MarkSubmitted(ctx, id, echo); err != nil {
		t.Fatal(err)
	}
	task, err := s.TaskByID(ctx, "tk-1")
	if err != nil {
		t.Fatal(err)
	}
	if task.LocalID != id || task.State != api.StateCreated || task.Credits != 30 || task.Pending ||
		string(task.Echo) != string(echo.Raw) || !task.ServiceCreatedAt.Equal(serviceCreated) {
		t.Errorf("after MarkSubmitted: %+v", task)
	}
	// The echo said off-peak; the window runs from the service's creation.
	if !task.OffPeak || !task.OffPeakDeadline.Equal(serviceCreated.Add(OffPeakWindow)) {
		t.Errorf("off-peak %v deadline %v, want %v", task.OffPeak, task.OffPeakDeadline, serviceCreated.Add(OffPeakWindow))
	}
	if _, err := s.PendingBody(ctx, id); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("pending body kept after the id was assigned: %v", err)
	}
	if got := states(task.Events); !slices.Equal(got, []string{">submitting", "submitting>created"}) {
		t.Errorf("events %v", got)
	}
	if !bytes.Equal(task.Events[1].Raw, echo.Raw) || !task.Events[1].At.Equal(clk.Now()) {
		t.Errorf("event: %+v", task.Events[1])
	}

	// Not twice, and not with a task id that another row holds.
	if err := s.MarkSubmitted(ctx, id, echo); !errors.Is(err, record.ErrConflict) {
		t.Errorf("second MarkSubmitted: %v, want ErrConflict", err)
	}
	other := mustBegin(t, s, `{}`)
	if err := s.MarkSubmitted(ctx, other, echo); !errors.Is(err, record.ErrConflict) {
		t.Errorf("duplicate task id: %v, want ErrConflict", err)
	}
	if err := s.MarkSubmitted(ctx, other, record.SubmittedEcho{}); err == nil {
		t.Error("accepted an echo without a task id")
	}
	if err := s.MarkSubmitted(ctx, 999, record.SubmittedEcho{TaskID: "x"}); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("unknown local id: %v, want ErrNotFound", err)
	}
}

func TestMarkSubmittedSynchronousAndOffPeakFromRequest(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	// audio-clone answers with a final state straight away.
	id := mustBegin(t, s, `{"voice_id":"v1","audio_url":"https://a"}`)
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "tk-s", State: api.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	if task, _ := s.Task(ctx, id); task.State != api.StateSuccess {
		t.Errorf("state %q", task.State)
	}
	inflight, err := s.InFlight(ctx)
	if err != nil || len(inflight) != 0 {
		t.Errorf("a finished synchronous task is in flight: %+v %v", inflight, err)
	}

	// Without service created_at, the off-peak window runs from the intent.
	begun := clk.Now()
	id = mustBegin(t, s, `{"off_peak":true}`)
	clk.Advance(time.Minute)
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "tk-o"}); err != nil {
		t.Fatal(err)
	}
	task, _ := s.Task(ctx, id)
	if !task.OffPeak || !task.OffPeakDeadline.Equal(begun.Add(OffPeakWindow)) {
		t.Errorf("off-peak %v deadline %v", task.OffPeak, task.OffPeakDeadline)
	}
}

func TestRejectResubmitAbandon(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	body := `{"prompt":"p","images":["data:image/png;base64,aGk="]}`
	id := mustBegin(t, s, body)
	rej := record.Rejection{Status: 429, Reason: "QuotaExceeded", Message: "quota exceeded", TraceID: "tr-1",
		Fields: []string{"model"}, Retryable: true}
	if err := s.MarkRejected(ctx, id, rej); err != nil {
		t.Fatal(err)
	}
	task, err := s.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.State != record.StateRejected || task.Rejection == nil || !task.Pending {
		t.Fatalf("after rejection: %+v", task)
	}
	if r := task.Rejection; r.Status != 429 || r.Reason != rej.Reason || r.Message != rej.Message ||
		r.TraceID != "tr-1" || !slices.Equal(r.Fields, rej.Fields) || !r.Retryable {
		t.Errorf("rejection %+v", r)
	}
	if got, err := s.PendingBody(ctx, id); err != nil || string(got) != body {
		t.Errorf("pending body after rejection: %q %v", got, err)
	}
	if err := s.MarkRejected(ctx, id, rej); !errors.Is(err, record.ErrConflict) {
		t.Errorf("rejecting a rejected task: %v", err)
	}
	unknown, _ := s.UnknownOutcomes(ctx)
	if len(unknown) != 0 {
		t.Errorf("a rejection is not an unknown outcome: %+v", unknown)
	}

	// Resubmit: back to submitting with the exact body.
	got, err := s.Resubmit(ctx, id)
	if err != nil || string(got) != body {
		t.Fatalf("Resubmit: %q %v", got, err)
	}
	if _, err := s.Resubmit(ctx, id); !errors.Is(err, record.ErrConflict) {
		t.Errorf("Resubmit of a submitting task: %v", err)
	}
	unknown, _ = s.UnknownOutcomes(ctx)
	if len(unknown) != 1 || unknown[0].LocalID != id {
		t.Errorf("a resubmission in progress must show as unknown after a crash: %+v", unknown)
	}
	// Rejected again, then abandoned: body gone, row kept.
	if err := s.MarkRejected(ctx, id, record.Rejection{Status: 400, Reason: "FieldInvalid"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Abandon(ctx, id); err != nil {
		t.Fatal(err)
	}
	task, _ = s.Task(ctx, id)
	if task.State != record.StateAbandoned || task.Pending || task.Rejection.Status != 400 || task.Rejection.Fields != nil {
		t.Errorf("after abandon: %+v %+v", task, task.Rejection)
	}
	want := []string{">submitting", "submitting>rejected", "rejected>submitting", "submitting>rejected", "rejected>abandoned"}
	if got := states(task.Events); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if err := s.Abandon(ctx, id); !errors.Is(err, record.ErrConflict) {
		t.Errorf("abandoning twice: %v", err)
	}

	// A later success keeps the last rejection as history.
	id2 := mustBegin(t, s, `{}`)
	s.MarkRejected(ctx, id2, record.Rejection{Status: 503, Retryable: true})
	if _, err := s.Resubmit(ctx, id2); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSubmitted(ctx, id2, record.SubmittedEcho{TaskID: "tk-2"}); err != nil {
		t.Fatal(err)
	}
	task, _ = s.Task(ctx, id2)
	if task.State != api.StateCreated || task.Rejection == nil || task.Rejection.Status != 503 || task.Pending {
		t.Errorf("resubmitted task: %+v", task)
	}
}

func TestUnknownOutcomes(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	a := mustBegin(t, s, `{"prompt":"a"}`)
	clk.Advance(time.Second)
	b := mustBegin(t, s, `{"prompt":"b"}`)
	clk.Advance(time.Second)
	c := mustBegin(t, s, `{"prompt":"c"}`)
	if err := s.MarkSubmitted(ctx, c, record.SubmittedEcho{TaskID: "tk-c"}); err != nil {
		t.Fatal(err)
	}
	unknown, err := s.UnknownOutcomes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 2 || unknown[0].LocalID != a || unknown[1].LocalID != b {
		t.Fatalf("unknown outcomes %+v, want a then b", unknown)
	}

	// The user found a on the service: it is tracked from now on.
	if err := s.ResolveUnknown(ctx, a, "tk-a"); err != nil {
		t.Fatal(err)
	}
	if err := s.ResolveUnknown(ctx, b, "tk-c"); !errors.Is(err, record.ErrConflict) {
		t.Errorf("resolving to a taken id: %v", err)
	}
	if err := s.ResolveUnknown(ctx, a, "tk-z"); !errors.Is(err, record.ErrConflict) {
		t.Errorf("resolving a resolved task: %v", err)
	}
	if err := s.ResolveUnknown(ctx, b, ""); err == nil {
		t.Error("resolved without a task id")
	}
	task, _ := s.TaskByID(ctx, "tk-a")
	if task.LocalID != a || task.State != api.StateCreated || task.Pending {
		t.Errorf("resolved: %+v", task)
	}
	// And b is dropped.
	if err := s.Abandon(ctx, b); err != nil {
		t.Fatal(err)
	}
	unknown, _ = s.UnknownOutcomes(ctx)
	if len(unknown) != 0 {
		t.Errorf("still unknown: %+v", unknown)
	}
	if err := s.Abandon(ctx, c); !errors.Is(err, record.ErrConflict) {
		t.Errorf("abandoning a submitted task: %v", err)
	}
}

func TestInFlight(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	for i, st := range []string{api.StateCreated, api.StateQueueing, api.StateProcessing, api.StateSuccess, api.StateFailed} {
		id := mustBegin(t, s, `{}`)
		tid := "tk-" + st
		if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: tid}); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := s.ApplyResult(ctx, tid, record.Update{State: st}); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(time.Second)
	}
	mustBegin(t, s, `{}`) // submitting, no id: not the tracker's to poll
	got, err := s.InFlight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range got {
		ids = append(ids, task.TaskID)
	}
	if !slices.Equal(ids, []string{"tk-created", "tk-queueing", "tk-processing"}) {
		t.Errorf("in flight %v", ids)
	}
}

func TestRejectionMessageWithoutFields(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	id := mustBegin(t, s, `{}`)
	if err := s.MarkRejected(ctx, id, record.Rejection{Status: 401, Reason: "Unauthorized", Message: strings.Repeat("m", 5000)}); err != nil {
		t.Fatal(err)
	}
	task, _ := s.Task(ctx, id)
	if task.Rejection.Fields != nil || len(task.Rejection.Message) != 5000 || task.Rejection.Retryable {
		t.Errorf("rejection %+v", task.Rejection)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
