package track

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// flakyRecords is a store whose writes of answers fail: MarkSubmitted
// always (a disk gone read-only), ApplyResult when asked to.
type flakyRecords struct {
	*history.Store
	marks       int
	failMarks   bool
	failResults bool
}

func (s *flakyRecords) MarkSubmitted(ctx context.Context, localID int64, e record.SubmittedEcho) error {
	s.marks++
	if s.failMarks {
		return errors.New("attempt to write a readonly database")
	}
	return s.Store.MarkSubmitted(ctx, localID, e)
}

func (s *flakyRecords) ApplyResult(ctx context.Context, taskID string, u record.Update) (bool, error) {
	if s.failResults {
		return false, errors.New("disk I/O error")
	}
	return s.Store.ApplyResult(ctx, taskID, u)
}

// A task the service created but history cannot record is written three
// times, with growing pauses (100, 200, 400 ms), then reported with the
// command that attaches it.
func TestCreatedTaskThatCannotBeRecordedNamesHowToAttachIt(t *testing.T) {
	svc := newService()
	c, hs, clk := setup(t, svc)
	store := &flakyRecords{Store: hs, failMarks: true}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	start := time.Now()
	_, err := tr.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"})
	took := time.Since(start)
	var se *SubmitError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "clapper history resolve") || !strings.Contains(err.Error(), "t1") {
		t.Fatalf("err = %v, want the way to attach task t1", err)
	}
	if store.marks != 3 {
		t.Errorf("%d attempts to record the answer, want 3", store.marks)
	}
	if took < 700*time.Millisecond {
		t.Errorf("gave up after %v; the three pauses take 700 ms", took)
	}
}

// Speech the service made but history could not record is a warning of
// the submission, not a failure of it.
func TestUnrecordedSpeechIsAWarning(t *testing.T) {
	svc := &scripted{creates: []string{
		`{"task_id":"s1","state":"success","file_url":"https://files.example/s1.wav","credits":1,"created_at":"2026-11-25T12:00:00Z"}`,
	}}
	c, hs, clk := setup(t, svc)
	store := &flakyRecords{Store: hs, failResults: true}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	sub, err := tr.Submit(context.Background(), api.OpAudioTTS, say("narrator01"))
	if err != nil {
		t.Fatal(err)
	}
	if sub.Warning == nil || !strings.Contains(sub.Warning.Error(), "was made but not recorded") {
		t.Errorf("warning %v, want the audio not recorded", sub.Warning)
	}
}

// A synchronous answer's audio is the task's result: speech its file_url,
// a clone its preview (demo_audio); a failed answer keeps none. Recorded
// without a warning.
func TestSyncAnswersRecordTheirAudio(t *testing.T) {
	svc := &scripted{creates: []string{
		`{"task_id":"s1","state":"success","file_url":"https://files.example/s1.wav","credits":1,"created_at":"2026-11-25T12:00:00Z"}`,
		`{"task_id":"c1","state":"success","voice_id":"narrator02","demo_audio":"https://files.example/demo.mp3","created_at":"2026-11-25T12:00:00Z"}`,
		`{"task_id":"s2","state":"failed","err_code":"InternalServiceFailure","file_url":"https://files.example/s2.wav","created_at":"2026-11-25T12:00:00Z"}`,
	}}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	for _, s := range []struct {
		op   api.Operation
		body map[string]any
		id   string
		url  string
	}{
		{api.OpAudioTTS, say("narrator01"), "s1", "https://files.example/s1.wav"},
		{api.OpAudioClone, map[string]any{"audio_url": "https://example.com/a.mp3", "voice_id": "narrator02", "text": "Hello."}, "c1", "https://files.example/demo.mp3"},
		{api.OpAudioTTS, say("narrator01"), "s2", ""},
	} {
		sub, err := tr.Submit(context.Background(), s.op, s.body)
		if err != nil || sub.Warning != nil {
			t.Fatalf("%s: %v, warning %v", s.id, err, sub.Warning)
		}
		task, err := store.TaskByID(context.Background(), s.id)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if len(task.Creations) > 0 {
			got = task.Creations[0].URL
		}
		if got != s.url || len(task.Creations) > 1 {
			t.Errorf("%s: result %+v, want %q", s.id, task.Creations, s.url)
		}
	}
}
