package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
)

// Tracker submits tasks durably and records what synchronous operations
// answer (voices from audio-clone, their use by audio-tts).
type Tracker struct {
	Client *api.Client
	Store  Store
	Clock  Clock
	// CallbackURL, when set, is given to every creation that takes a
	// callback_url and was not given one, so the service reports to the
	// receiver instead of waiting for a poll.
	CallbackURL string
	// Origin is recorded with every task sent: the front end using it.
	Origin record.Origin
	// Budget, when set, says what a request is expected to cost and the
	// credit caps it is held to: the history reserves the cost and checks
	// the caps in the transaction that records the request.
	Budget func(ctx context.Context, op api.Operation, body map[string]any) (reserve int64, caps []record.Cap)
	// AfterIntent and AfterPost let tests stop the flow between its steps,
	// as a crash would.
	AfterIntent func(localID int64) error
	AfterPost   func(localID int64, t *api.Task) error
	// beatEvery paces the heartbeat while a POST waits (intentBeat when 0).
	beatEvery time.Duration
}

// Submission is a request the service accepted.
type Submission struct {
	LocalID int64
	Task    *api.Task
	// Model is the model the request named ("" for none) and Sent when it
	// was sent: what a watcher needs of the task, without reading it back.
	Model string
	Sent  time.Time
	// Warning is something that went wrong after the task was created and
	// recorded (a cloned voice that could not be noted): worth telling, not
	// a failure of the submission.
	Warning error
}

// SubmitError is a submission that produced no recorded task, with the
// history row it left (# in clapper history), so the user can act on it.
type SubmitError struct {
	LocalID int64
	Err     error
}

func (e *SubmitError) Error() string { return e.Err.Error() }
func (e *SubmitError) Unwrap() error { return e.Err }

// ErrOutcomeUnknown means the request may have reached the service but no
// answer came back: the intent stays in history as "outcome unknown".
var ErrOutcomeUnknown = errors.New("the service may or may not have created the task")

// Submit records the intent, POSTs the body and records the answer. The
// body must already have passed catalog.Validate.
func (t *Tracker) Submit(ctx context.Context, op api.Operation, body map[string]any) (*Submission, error) {
	return t.SubmitInSet(ctx, op, body, nil)
}

// SubmitInSet is Submit for a line of a set (nil for none): the line is tied
// to the request as it is recorded, and a line sent before is refused
// (record.ErrLineSent) with nothing sent.
func (t *Tracker) SubmitInSet(ctx context.Context, op api.Operation, body map[string]any, line *record.SetLine) (*Submission, error) {
	return t.SubmitLinked(ctx, op, body, line, nil)
}

// SubmitLinked is Submit for a line of a set (nil for none) and a request
// sent onward from parent tasks (one per field they fill): all are tied to
// the request as it is recorded.
func (t *Tracker) SubmitLinked(ctx context.Context, op api.Operation, body map[string]any, line *record.SetLine, parents []record.Parent) (*Submission, error) {
	if t.CallbackURL != "" {
		if _, ok := body["callback_url"]; !ok {
			if _, takes := catalog.FieldOf(op, "callback_url"); takes {
				body["callback_url"] = t.CallbackURL
			}
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	in := record.Intent{Operation: op, Body: raw, Origin: t.Origin, Sender: Sender(), Set: line, Parents: parents}
	if t.Budget != nil {
		in.Reserve, in.Caps = t.Budget(ctx, op, body)
	}
	localID, err := t.Store.BeginSubmit(ctx, in)
	var capped *record.CapExceeded
	if errors.As(err, &capped) {
		return nil, capped // refused by a cap: nothing recorded, nothing sent
	}
	if err != nil {
		return nil, fmt.Errorf("record the request before sending it: %w", err)
	}
	return t.send(ctx, localID, op, raw)
}

// Resubmit sends a refused request again, from the body history kept.
func (t *Tracker) Resubmit(ctx context.Context, localID int64, op api.Operation) (*Submission, error) {
	raw, err := t.Store.Resubmit(ctx, localID)
	if err != nil {
		return nil, err
	}
	return t.send(ctx, localID, op, raw)
}

// sendingKey carries WithSending's function in a context.
type sendingKey struct{}

// WithSending returns ctx telling sending the local id of each request a
// submission records, once recorded and before it is sent: a front end
// shows the request as being sent while the service has not answered
// (an answer can take the whole request timeout).
func WithSending(ctx context.Context, sending func(localID int64)) context.Context {
	return context.WithValue(ctx, sendingKey{}, sending)
}

func (t *Tracker) send(ctx context.Context, localID int64, op api.Operation, raw []byte) (*Submission, error) {
	sent := t.now()
	if t.AfterIntent != nil {
		if err := t.AfterIntent(localID); err != nil {
			return nil, err
		}
	}
	// This process sends it (a resubmission names it anew), and says so
	// until the answer comes: the request is not of unknown outcome while
	// anyone waits for it.
	if err := t.Store.BeatIntent(ctx, localID, Sender()); err != nil {
		return nil, &SubmitError{LocalID: localID, Err: fmt.Errorf("record the request before sending it: %w", err)}
	}
	if sending, ok := ctx.Value(sendingKey{}).(func(int64)); ok {
		sending(localID)
	}
	stop := t.beat(localID)
	task, err := t.Client.Create(ctx, op, json.RawMessage(raw))
	stop()
	if err != nil {
		return nil, &SubmitError{LocalID: localID, Err: t.recordFailure(localID, err)}
	}
	if t.AfterPost != nil {
		if err := t.AfterPost(localID, task); err != nil {
			return nil, err
		}
	}
	// The answer is recorded even if the caller gave up meanwhile: the task
	// exists now, and losing its id is the one thing this must not do.
	wctx := context.WithoutCancel(ctx)
	echo := record.SubmittedEcho{
		TaskID:    task.Identifier(),
		State:     task.State,
		Credits:   int64(task.Credits),
		CreatedAt: parseTime(task.CreatedAt),
		OffPeak:   task.OffPeak,
		Raw:       task.Raw,
	}
	var merr error
	for attempt := 0; attempt < 3; attempt++ {
		if merr = t.Store.MarkSubmitted(wctx, localID, echo); merr == nil {
			break
		}
		time.Sleep(100 * time.Millisecond << attempt) // a busy or briefly full disk
	}
	if merr != nil {
		return nil, &SubmitError{LocalID: localID, Err: fmt.Errorf("task %s was created but could not be recorded (%v); attach it with: clapper history resolve %d %s",
			task.Identifier(), merr, localID, task.Identifier())}
	}
	warning := t.recordVoice(wctx, op, task)
	if err := t.recordSyncResult(wctx, op, task); err != nil && warning == nil {
		warning = err
	}
	return &Submission{LocalID: localID, Task: task, Warning: warning, Model: modelOf(raw), Sent: sent}, nil
}

// recordSyncResult keeps the audio a synchronous operation answered with
// (speech, a voice preview) as the task's result, so it is listed, expires
// and downloads like any other.
func (t *Tracker) recordSyncResult(ctx context.Context, op api.Operation, task *api.Task) error {
	res := SyncResult(task)
	if !op.IsSynchronous() || res == nil {
		return nil
	}
	if _, err := t.Store.ApplyResult(ctx, res.ID, updateFrom(res, t.now())); err != nil {
		return fmt.Errorf("the audio of task %s was made but not recorded: %w", res.ID, err)
	}
	return nil
}

// SyncResult is the result a synchronous operation answered with, shaped
// as a task result; nil when it carries no file.
func SyncResult(task *api.Task) *api.TaskResult {
	url := task.FileURL
	if url == "" {
		url = task.DemoAudio
	}
	if task.State != api.StateSuccess || url == "" {
		return nil
	}
	return &api.TaskResult{ID: task.Identifier(), State: task.State, Credits: task.Credits, CreditsSent: true, Raw: task.Raw,
		Creations: []api.Creation{{ID: task.Identifier(), URL: url}}}
}

// NotSentError is a creation request that never reached the service: the
// connection to its host failed, so nothing was created or charged.
type NotSentError struct {
	Host string
	Err  error
}

func (e *NotSentError) Error() string {
	return "not sent: could not reach " + e.Host + " (" + e.Err.Error() + ")"
}

func (e *NotSentError) Unwrap() error { return e.Err }

// recordFailure keeps a refusal (with its body, for a resubmission) or, when
// the request may have reached the server, leaves the intent unresolved.
func (t *Tracker) recordFailure(localID int64, err error) error {
	ctx := context.Background()
	if e, ok := api.AsError(err); ok && e.Status < 500 {
		// A 4xx or 429 refused the request: nothing was created. A 5xx is
		// not so sure (the task may exist), so it stays unknown below.
		rej := record.Rejection{Status: e.Status, Reason: e.Reason, Message: e.Message, TraceID: e.TraceID, Fields: e.Fields, Retryable: e.Temporary()}
		if merr := t.Store.MarkRejected(ctx, localID, rej); merr != nil {
			return fmt.Errorf("%w (and recording the refusal failed: %v)", err, merr)
		}
		return err
	}
	if host, ok := api.UnreachedHost(err); ok {
		// Nothing reached the service: not a refusal, and safe to send again.
		err = &NotSentError{Host: host, Err: err}
		rej := record.Rejection{Reason: record.ReasonNotSent, Message: err.Error(), Retryable: true}
		if merr := t.Store.MarkRejected(ctx, localID, rej); merr != nil {
			return fmt.Errorf("%w (and recording it failed: %v)", err, merr)
		}
		return err
	}
	// Nobody waits for this answer any more: the request is of unknown
	// outcome now, for this process and every other.
	if merr := t.Store.StopSending(ctx, localID); merr != nil {
		return fmt.Errorf("%w: %v (and recording it failed: %v)", ErrOutcomeUnknown, err, merr)
	}
	return fmt.Errorf("%w: %v", ErrOutcomeUnknown, err)
}

// recordVoice keeps voices cloned by audio-clone and the use of a cloned
// voice by a successful audio-tts, which keeps the voice for good when it
// comes within 168 hours of the cloning. A synthesis that answered queueing
// counts once the watcher sees it succeed.
func (t *Tracker) recordVoice(ctx context.Context, op api.Operation, task *api.Task) error {
	switch {
	case op == api.OpAudioClone && task.State != api.StateFailed && task.VoiceID != "":
		v := record.Voice{VoiceID: task.VoiceID, CloneTaskID: task.Identifier(), CreatedAt: t.created(task), DemoAudio: task.DemoAudio}
		if err := t.Store.RecordVoice(ctx, v); err != nil {
			return fmt.Errorf("voice %s was cloned but not recorded: %w", task.VoiceID, err)
		}
	case op == api.OpAudioTTS && task.State == api.StateSuccess:
		return recordSpeech(ctx, t.Store, task.Identifier())
	}
	return nil
}

// recordSpeech records the use of the voice by the successful audio-tts task
// id, which history holds with its request. Voices not cloned here (system
// voices) are simply not tracked.
func recordSpeech(ctx context.Context, store Store, id string) error {
	if err := store.RecordVoiceUse(ctx, id); err != nil && !errors.Is(err, record.ErrNotFound) {
		return fmt.Errorf("the use of a voice by speech task %s was not recorded: %w", id, err)
	}
	return nil
}

func (t *Tracker) created(task *api.Task) time.Time {
	if ts := parseTime(task.CreatedAt); !ts.IsZero() {
		return ts
	}
	return t.now()
}

func (t *Tracker) now() time.Time {
	if t.Clock == nil {
		return time.Now()
	}
	return t.Clock.Now()
}

func parseTime(s string) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return ts
}

// modelOf is the model a request body names ("" for none).
func modelOf(raw []byte) string {
	var b struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(raw, &b) // a body without a model has none
	return b.Model
}
