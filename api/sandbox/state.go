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

	byID   map[string]*unit
	active []*unit // units that are not terminal and not jobs, by Seq
	// next caches the time of the earliest pending event so that a request
	// finding nothing due costs no scan.
	next      time.Time
	nextKnown bool
	touched   map[string]bool // jobs whose children changed in this step
	dirty     bool
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
	st.active = st.active[:0]
	for _, u := range st.Units {
		st.byID[u.ID] = u
		if !u.terminal() && u.Kind != kindJob {
			st.active = append(st.active, u)
		}
	}
	slices.SortFunc(st.active, func(a, b *unit) int { return int(a.Seq - b.Seq) })
	st.nextKnown = false
}

func (st *state) add(u *unit) {
	st.Units = append(st.Units, u)
	st.byID[u.ID] = u
	if !u.terminal() && u.Kind != kindJob {
		st.active = append(st.active, u)
	}
	st.nextKnown = false
	st.touch(u)
	st.trim()
}

// maxUnits bounds what the sandbox remembers, so a long load test grows
// neither memory nor the state file without end: past it, the oldest
// finished tasks are forgotten (reading them then answers TaskNotFound).
// Multi-scene jobs and their parts are kept whole.
const maxUnits = 20000

func (st *state) trim() {
	drop := len(st.Units) - maxUnits
	if drop <= 0 {
		return
	}
	kept := st.Units[:0]
	for _, u := range st.Units {
		if drop > 0 && u.Kind == kindTask && u.terminal() {
			delete(st.byID, u.ID)
			delete(st.changed, u.ID)
			st.dropped = append(st.dropped, u.ID)
			drop--
			continue
		}
		kept = append(kept, u)
	}
	clear(st.Units[len(kept):])
	st.Units = kept
}
