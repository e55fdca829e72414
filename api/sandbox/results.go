package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"clapper/api"
)

// How long signed URLs stay valid, as the spec says.
const (
	urlValidity         = 24 * time.Hour
	trendingURLValidity = time.Hour
	// Multi-scene signed_url: "under 3 minutes".
	signedURLValidity = 170 * time.Second
)

const filesPrefix = "/_sandbox/files/"

// signer makes result URLs on the sandbox's own host.
type signer struct {
	secret []byte
	origin string
	now    time.Time
}

func (sg signer) url(id, name string, validity time.Duration) string {
	// Round up to the second: a URL is never valid for less than promised.
	end := sg.now.Add(validity)
	exp := end.Unix()
	if end.Nanosecond() > 0 {
		exp++
	}
	q := url.Values{"exp": {strconv.FormatInt(exp, 10)}, "sig": {fileSignature(sg.secret, id, name, exp)}}
	return sg.origin + filesPrefix + url.PathEscape(id) + "/" + name + "?" + q.Encode()
}

func fileSignature(secret []byte, id, name string, exp int64) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id + "/" + name + "\n" + strconv.FormatInt(exp, 10)))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// Result files, by name: what each kind of result is served as.
const (
	fileVideo       = "video.mp4"
	fileWatermarked = "watermarked.mp4"
	fileCover       = "cover.jpg"
	fileImage       = "image.png"
	fileTimeline    = "audio.wav"
	fileSpeech      = "speech.wav"
	fileDemo        = "demo.wav"
)

// files lists the result files of a unit in the order creations show them:
// url, then cover_url, then watermarked_url.
func files(u *unit) []string {
	switch {
	case u.Kind == kindScene:
		return []string{fileVideo, fileCover, fileImage}
	case u.Kind != kindTask:
		return []string{fileVideo, fileCover}
	case u.Op == api.OpReference2Image:
		return []string{fileImage, fileCover}
	case u.Op == api.OpTiming2Audio, u.Op == api.OpText2Audio:
		return []string{fileTimeline}
	case u.Op == api.OpAudioTTS:
		return []string{fileSpeech}
	case u.Op == api.OpAudioClone:
		if pStr(u.Params, "text") == "" {
			return nil
		}
		return []string{fileDemo}
	case isVideoOp(u.Op), u.Op == api.OpExtend, u.Op == api.OpMultiframe, u.Op == api.OpTemplate2Video:
		return []string{fileVideo, fileCover, fileWatermarked}
	}
	return []string{fileVideo, fileCover}
}

func validity(u *unit) time.Duration {
	if u.Op == api.OpTrendingReplicate {
		return trendingURLValidity
	}
	return urlValidity
}

// creationBody is a Creation item. cover_url is always there, empty where a
// result has no cover (audio), as the service's Creation table lists it.
type creationBody struct {
	ID             string `json:"id"`
	URL            string `json:"url"`
	CoverURL       string `json:"cover_url"`
	WatermarkedURL string `json:"watermarked_url,omitempty"`
}

// creationOf is the result item of a successful unit, freshly signed.
func creationOf(st *state, u *unit, sg signer) (creationBody, bool) {
	fs := files(u)
	if u.State != api.StateSuccess || len(fs) == 0 {
		return creationBody{}, false
	}
	v := validity(u)
	c := creationBody{ID: makeID(st.Seed, u.Seq, creationSalt), URL: sg.url(u.ID, fs[0], v)}
	if len(fs) > 1 && fs[1] == fileCover {
		c.CoverURL = sg.url(u.ID, fileCover, v)
	}
	if len(fs) > 2 && fs[2] == fileWatermarked {
		c.WatermarkedURL = sg.url(u.ID, fileWatermarked, v)
	}
	return c, true
}

// resultBody is the task-result shape of GET /tasks/{id}/creations and of
// callbacks.
type resultBody struct {
	ID            string         `json:"id"`
	State         string         `json:"state"`
	ErrCode       string         `json:"err_code"`
	ErrMsg        string         `json:"err_msg,omitempty"`
	Credits       int            `json:"credits"`
	Payload       string         `json:"payload"`
	BGM           bool           `json:"bgm"`
	OffPeak       bool           `json:"off_peak"`
	Creations     []creationBody `json:"creations"`
	Progress      *int           `json:"progress,omitempty"`
	Duration      any            `json:"duration,omitempty"`
	TimingPrompts any            `json:"timing_prompts,omitempty"`
	Seed          any            `json:"seed,omitempty"`
	CreatedAt     string         `json:"created_at"`
	CallbackURL   string         `json:"callback_url,omitempty"`
}

// result renders a unit as a task result. asState, when not "", reports an
// earlier state than the current one (a late processing callback).
func result(st *state, u *unit, sg signer, asState string) resultBody {
	r := resultBody{
		ID: u.ID, State: u.State, ErrCode: u.ErrCode, Credits: u.reportedCredits(),
		Payload: pStr(u.Params, "payload"), BGM: pBool(u.Params, "bgm"), OffPeak: u.OffPeak,
		Creations: []creationBody{}, CreatedAt: stamp(u.CreatedAt),
		CallbackURL: pStr(u.Params, "callback_url"),
	}
	if u.Kind == kindJob {
		r.ErrMsg = u.ErrMsg
		if c := st.latestSuccess(u.Composes); c != nil {
			if cb, ok := creationOf(st, c, sg); ok {
				r.Creations = append(r.Creations, cb)
			}
		}
		r.Credits = jobCredits(st, u)
	} else if c, ok := creationOf(st, u, sg); ok {
		r.Creations = append(r.Creations, c)
	}
	switch u.Op {
	case api.OpTiming2Audio:
		r.Duration, r.TimingPrompts, r.Seed = u.Params["duration"], u.Params["timing_prompts"], u.Params["seed"]
	case api.OpText2Audio:
		r.Duration, r.Seed = u.Params["duration"], u.Params["seed"]
	case api.OpTrendingReplicate:
		p := progress(u, sg.now)
		r.Progress = &p
	}
	if asState != "" && asState != u.State {
		// A callback reporting a state the unit has since left (a job edited
		// after it settled, a late processing report).
		switch asState {
		case api.StateSuccess:
			r.State, r.ErrCode, r.ErrMsg = asState, "", "" // creations: the latest composition
		case api.StateFailed:
			r.State, r.Creations = asState, []creationBody{}
			if r.ErrCode == "" {
				r.ErrCode = api.ReasonInternalServiceFailure // a failure always carries a code
			}
		default:
			r.State, r.ErrCode, r.ErrMsg, r.Creations = asState, "", "", []creationBody{}
			if r.Progress != nil {
				p := progress(u, u.StartedAt)
				r.Progress = &p
			}
		}
	}
	return r
}

// progress rises with the share of processing time elapsed; 100 only on
// success, and a failed task keeps where it stopped.
func progress(u *unit, now time.Time) int {
	switch u.State {
	case api.StateSuccess:
		return 100
	case api.StateCreated, api.StateQueueing:
		return 0
	}
	end := now
	if u.State == api.StateFailed {
		end = u.UpdatedAt
	}
	whole := u.PlanDur
	if whole <= 0 {
		whole = u.ProcDur // state written before PlanDur existed
	}
	if u.StartedAt.IsZero() || whole <= 0 {
		return 0
	}
	p := int(100 * float64(end.Sub(u.StartedAt)) / float64(whole))
	return min(99, max(0, p))
}

// jobCredits is what a multi-scene job has cost: its creation (returned if
// it failed without ever composing) and every edit that did not fail.
func jobCredits(st *state, j *unit) int {
	c := j.reportedCredits()
	for _, versions := range j.Scenes {
		for _, id := range versions {
			c += st.byID[id].reportedCredits()
		}
	}
	return c
}

// jobBody is the multi-scene job record.
type jobBody struct {
	ID         string       `json:"id"`
	Type       string       `json:"type"`
	CreatorID  string       `json:"creator_id"`
	State      string       `json:"state"`
	Input      string       `json:"input"`
	JobRecords []recordBody `json:"job_records"`
	CreatedAt  string       `json:"created_at"`
	UpdatedAt  string       `json:"updated_at"`
	ErrCode    string       `json:"err_code"`
	ErrMsg     string       `json:"err_msg"`
	SignedURL  string       `json:"signed_url"`
}

type recordBody struct {
	Type  string    `json:"type"`
	Index int       `json:"index"`
	Jobs  []jobItem `json:"jobs"`
}

type jobItem struct {
	ID                   string      `json:"id"`
	Type                 string      `json:"type"`
	Input                string      `json:"input"`
	Output               string      `json:"output"`
	State                string      `json:"state"`
	CreatedAt            string      `json:"created_at"`
	UpdatedAt            string      `json:"updated_at"`
	ErrCode              string      `json:"err_code"`
	ErrMsg               string      `json:"err_msg"`
	SignedURL            string      `json:"signed_url"`
	Index                int         `json:"index"`
	MVGenerateVideoInput *sceneInput `json:"mv_generate_video_input,omitempty"`
}

type sceneInput struct {
	Duration     int      `json:"duration"`
	Prompt       string   `json:"prompt"`
	LyricText    string   `json:"lyric_text"`
	SignedImages []string `json:"signed_images"`
}

// creatorID is the one account every token of the sandbox shares.
const creatorID = "sandbox"

func jobRecord(st *state, j *unit, sg signer) jobBody {
	b := jobBody{
		ID: j.ID, Type: "one_click", CreatorID: creatorID, State: j.State,
		Input: jsonText(j.Params), CreatedAt: stamp(j.CreatedAt), UpdatedAt: stamp(j.UpdatedAt),
		ErrCode: j.ErrCode, ErrMsg: j.ErrMsg, JobRecords: []recordBody{},
	}
	if c := st.latestSuccess(j.Composes); c != nil {
		b.SignedURL = sg.url(c.ID, fileVideo, signedURLValidity)
	}
	for i, versions := range j.Scenes {
		rec := recordBody{Type: api.RecordGenerateVideo, Index: i}
		for _, id := range versions {
			rec.Jobs = append(rec.Jobs, jobItemOf(st.byID[id], sg))
		}
		b.JobRecords = append(b.JobRecords, rec)
	}
	rec := recordBody{Type: api.RecordCompose, Index: len(j.Scenes)}
	for _, id := range j.Composes {
		rec.Jobs = append(rec.Jobs, jobItemOf(st.byID[id], sg))
	}
	b.JobRecords = append(b.JobRecords, rec)
	return b
}

func jobItemOf(u *unit, sg signer) jobItem {
	typ := api.RecordGenerateVideo
	if u.Kind == kindCompose {
		typ = api.RecordCompose
	}
	it := jobItem{
		ID: u.ID, Type: typ, Input: jsonText(u.Params), State: u.State,
		CreatedAt: stamp(u.CreatedAt), UpdatedAt: stamp(u.UpdatedAt),
		ErrCode: u.ErrCode, ErrMsg: u.ErrMsg, Index: u.Index,
	}
	secs := int(pNumOr(u.Params, "duration", 0))
	if u.State == api.StateSuccess {
		it.SignedURL = sg.url(u.ID, fileVideo, signedURLValidity)
		it.Output = jsonText(map[string]any{"duration": secs, "aspect_ratio": u.Ratio})
	}
	if u.Kind == kindScene {
		in := &sceneInput{Duration: secs, Prompt: pStr(u.Params, "prompt"), SignedImages: []string{}}
		if u.State == api.StateSuccess {
			in.SignedImages = append(in.SignedImages, sg.url(u.ID, fileImage, signedURLValidity))
		}
		it.MVGenerateVideoInput = in
	}
	return it
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
