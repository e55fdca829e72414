package sandbox

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"clapper/api"
)

// Kinds of unit: everything with an id that GET /tasks/{id}/creations reads.
const (
	kindTask    = "task"    // a creation call of any operation but general_one_click
	kindJob     = "job"     // a multi-scene job; its state follows its children
	kindScene   = "scene"   // one version of one scene of a job
	kindCompose = "compose" // one composition of a job
)

// unit is one task, job or sub-job with its whole plan: every time and the
// outcome are drawn at creation, so that the state at any instant follows from
// the plan, the concurrency limit and the clock alone.
type unit struct {
	ID     string        `json:"id"`
	Seq    int64         `json:"seq"`
	Op     api.Operation `json:"op"`
	Kind   string        `json:"kind"`
	Parent string        `json:"parent,omitempty"` // the job of a scene or compose
	Index  int           `json:"index,omitempty"`  // scene index; the compose record's index

	// Params are the effective request parameters (defaults applied, seed
	// used), with data URIs shortened: the media are regenerated from them.
	Params map[string]any `json:"params"`
	// MediaSeed drives the generated result files.
	MediaSeed int64 `json:"media_seed"`
	// Ratio is the frame shape of the results ("W:H").
	Ratio string `json:"ratio,omitempty"`
	// Seconds is the length of the result, where it is a video or audio
	// whose length follows from the request (an extended video is its
	// source and the extension).
	Seconds float64 `json:"seconds,omitempty"`
	// Origin is scheme://host of the creating request: callbacks carry
	// absolute result URLs and have no request of their own to take it from.
	Origin      string `json:"origin"`
	CallbackURL string `json:"callback_url,omitempty"` // only loopback targets are kept
	// Token signs callbacks; kept only when there is a callback to sign.
	Token string `json:"token,omitempty"`

	State    string `json:"state"`
	ErrCode  string `json:"err_code,omitempty"`
	ErrMsg   string `json:"err_msg,omitempty"`
	Credits  int    `json:"credits"`
	Refunded bool   `json:"refunded,omitempty"`
	// Queued units wait for one of the account's MaxConcurrent slots.
	Queued  bool `json:"queued,omitempty"`
	OffPeak bool `json:"off_peak,omitempty"`

	CreatedAt  time.Time     `json:"created_at"`
	UpdatedAt  time.Time     `json:"updated_at"`
	QueueAt    time.Time     `json:"queue_at,omitzero"`    // leaves created
	EligibleAt time.Time     `json:"eligible_at,omitzero"` // earliest start
	StartedAt  time.Time     `json:"started_at,omitzero"`
	EndAt      time.Time     `json:"end_at,omitzero"`
	Deadline   time.Time     `json:"deadline,omitzero"` // off-peak window end
	ProcDur    time.Duration `json:"proc_dur,omitempty"`
	// PlanDur is the whole generation time; a failing task stops short of
	// it (ProcDur), and its progress shows how far it got.
	PlanDur time.Duration `json:"plan_dur,omitempty"`
	Fail    string        `json:"fail,omitempty"` // planned err_code; "" = success

	Needs    []string   `json:"needs,omitempty"`    // compose: the scene versions composed
	Scenes   [][]string `json:"scenes,omitempty"`   // job: per scene, its versions oldest first
	Composes []string   `json:"composes,omitempty"` // job: its compositions oldest first
}

func (u *unit) terminal() bool { return api.IsTerminal(u.State) }

// reportedCredits is what results show: credits are returned when a task
// fails or is cancelled.
func (u *unit) reportedCredits() int {
	if u.Refunded {
		return 0
	}
	return u.Credits
}

// voice is a cloned voice; system voices are not stored.
type voice struct {
	ID        string    `json:"id"`
	TaskID    string    `json:"task_id"`
	CreatedAt time.Time `json:"created_at"`
	LastUsed  time.Time `json:"last_used,omitzero"` // last successful audio-tts
	// Kept: audio-tts used the voice within voiceRetention of its cloning,
	// so it is never deleted.
	Kept bool `json:"kept,omitempty"`
}

// delivery is a callback still to be sent.
type delivery struct {
	ID       int64     `json:"id"`
	Unit     string    `json:"unit"`
	State    string    `json:"state"` // the state the callback reports
	Attempts int       `json:"attempts"`
	Max      int       `json:"max"`
	NextAt   time.Time `json:"next_at"`
}

// state is everything the sandbox knows; it is what the state file holds.
type state struct {
	Seed   int64  `json:"seed"`
	Secret []byte `json:"secret"` // signs result URLs
	Seq    int64  `json:"seq"`
	// Cursor is the time of the last simulated event.
	Cursor     time.Time         `json:"cursor"`
	Units      []*unit           `json:"units"`
	Voices     map[string]*voice `json:"voices"`
	Deliveries []*delivery       `json:"deliveries"`
	DelivSeq   int64             `json:"delivery_seq"`
	// Uploads and Subjects are the account's uploaded images and stored
	// subjects; AuxSeq numbers them.
	Uploads  map[string]*upload `json:"uploads,omitempty"`
	Subjects []*subject         `json:"subjects,omitempty"`
	AuxSeq   int64              `json:"aux_seq,omitempty"`
	// Journal is the number of the last journal record this state holds
	// (see fileStore): replaying skips the records up to it.
	Journal int64 `json:"journal,omitempty"`

	byID map[string]*unit
	// byCreation finds a unit by the id of its creation item: extend and
	// upscale-new name a video by it.
	byCreation map[string]*unit
	// The engine files the units in flight by what they wait for, so that
	// an event or a creation costs O(log n) however many are in flight.
	// events holds each one's timed events; queue the queued tasks that are
	// not off-peak, in submission order (the strict queue); offPeak the
	// off-peak ones queueing, by when they may start; ready those whose time
	// came. running counts the slots taken.
	events, queue, offPeak, ready schedule
	running                       int
	// recheck are compositions whose wait is over, which no timed event
	// of theirs will bring up again: the next step looks at their scenes.
	recheck []*unit
	// finished are the finished tasks in the order they finished, the
	// order trim forgets them in; gone counts those forgotten still in Units.
	finished []*unit
	gone     int
	touched  map[string]bool // jobs whose children changed in this step
	dirty    bool
	// changed and dropped are the units written and forgotten since the
	// last save: the journal records them, not every unit.
	changed map[string]*unit
	dropped []string
}

// touch records that u changed, to be saved.
func (st *state) touch(u *unit) {
	if st.changed == nil {
		st.changed = map[string]*unit{}
	}
	st.changed[u.ID] = u
	st.dirty = true
}

func newState(seed int64, secret []byte) *state {
	st := &state{Seed: seed, Secret: secret, Voices: map[string]*voice{}, Uploads: map[string]*upload{}}
	st.index()
	return st
}

func decodeState(b []byte) (*state, error) {
	var st state
	// Parameters keep numbers as json.Number, the form request bodies are
	// read in, so that the code reading them sees one form only.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil {
		return nil, err
	}
	if st.Voices == nil {
		st.Voices = map[string]*voice{}
	}
	if st.Uploads == nil {
		st.Uploads = map[string]*upload{}
	}
	for _, v := range st.Voices {
		// A state file from before kept existed set last_used to the
		// cloning time and moved it at each use. A voice it still holds
		// after a use was used in time, so it is kept.
		if v.LastUsed.After(v.CreatedAt) {
			v.Kept = true
		}
	}
	st.index()
	return &st, nil
}

func (st *state) index() {
	st.byID = make(map[string]*unit, len(st.Units))
	st.byCreation = make(map[string]*unit, len(st.Units))
	st.events, st.queue = loadSchedule(pending), loadSchedule(waiting)
	st.offPeak, st.ready = loadSchedule(queueing), loadSchedule(queueing)
	st.running, st.recheck, st.finished, st.gone = 0, nil, nil, 0
	for _, u := range st.Units {
		st.hold(u)
	}
	for _, s := range []*schedule{&st.events, &st.queue, &st.offPeak, &st.ready} {
		s.loaded()
	}
	slices.SortStableFunc(st.finished, func(a, b *unit) int { return a.UpdatedAt.Compare(b.UpdatedAt) })
}

// hold indexes u and hands it to the engine.
func (st *state) hold(u *unit) {
	st.byID[u.ID] = u
	st.byCreation[makeID(st.Seed, u.Seq, creationSalt)] = u
	switch {
	case u.Kind == kindJob:
	case !u.terminal():
		st.file(u)
	case u.Kind == kindTask:
		st.finished = append(st.finished, u)
	}
}

func (st *state) add(u *unit) {
	st.Units = append(st.Units, u)
	st.hold(u)
	st.touch(u)
	st.trim()
}

// maxUnits bounds what the sandbox remembers, so a long load test grows
// neither memory nor the state file without end: past it, the tasks that
// finished first are forgotten (reading them then answers TaskNotFound).
// Tasks in flight are kept, and multi-scene jobs and their parts are kept
// whole.
const maxUnits = 100_000

func (st *state) trim() {
	for len(st.byID) > maxUnits && len(st.finished) > 0 {
		u := st.finished[0]
		st.finished[0] = nil // not pinned by the array's unused head
		st.finished = st.finished[1:]
		delete(st.byID, u.ID)
		delete(st.byCreation, makeID(st.Seed, u.Seq, creationSalt))
		delete(st.changed, u.ID)
		st.dropped = append(st.dropped, u.ID)
		st.gone++
	}
	// Taking each one out of Units would copy it whole; an eighth of it
	// forgotten is taken out at once.
	if st.gone > len(st.Units)/8 {
		st.compact()
	}
}

// compact takes the units trim forgot out of Units: whatever reads Units
// whole compacts it first.
func (st *state) compact() {
	if st.gone == 0 {
		return
	}
	st.Units = slices.DeleteFunc(st.Units, func(u *unit) bool { return st.byID[u.ID] != u })
	st.gone = 0
}
