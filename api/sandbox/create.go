package sandbox

import (
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// maxBody is the service's limit on a request body: 20 MB (MiB here).
const maxBody = 20 << 20

// creation is a validated creation request with what was derived from it
// outside the state lock (data URIs are decoded there, not under it).
type creation struct {
	op       api.Operation
	params   map[string]any // effective parameters, data URIs intact: the echo
	origin   string
	token    string
	callback string // the callback URL when it is a loopback target
	ratio    string
	songSecs float64
	// seconds is the result's planned length (Server.plan).
	seconds float64
}

func (c *creation) signer(st *state, now time.Time) signer {
	return signer{secret: st.Secret, origin: c.origin, now: now}
}

// readBody reads a request body as a JSON object, within the size limit.
func readBody(w http.ResponseWriter, r *http.Request) (map[string]any, *api.Error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, apiError(api.ReasonBadRequest, "request body exceeds 20 MB", "body")
		}
		return nil, apiError(api.ReasonBadRequest, "request body could not be read: "+err.Error(), "body")
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, apiError(api.ReasonBadRequest, "request body is empty; want a JSON object", "body")
	}
	m, err := decodeObject(b)
	if err != nil {
		return nil, apiError(api.ReasonBadRequest, "malformed JSON body: "+err.Error(), "body")
	}
	return m, nil
}

// fieldErrors renders catalog errors as the service does: a templated
// message naming the fields, then what the rules say.
func fieldErrors(es catalog.Errors) *api.Error {
	e := es.APIError()
	var same []string
	for _, fe := range es {
		if fe.Reason == e.Reason && !slices.Contains(same, fe.Field) {
			same = append(same, fe.Field)
		}
	}
	e.Message = reasonTemplate(e.Reason) + strings.Join(same, ", ") + " (" + es.Error() + ")"
	return e
}

func reasonTemplate(reason string) string {
	switch reason {
	case api.ReasonFieldLacking:
		return "field is missing or empty: "
	case api.ReasonFieldUnwanted:
		return "field is not accepted: "
	case api.ReasonFieldItemCountOutOfRange:
		return "item count out of range: "
	case api.ReasonImageFormatInvalid:
		return "invalid image format: "
	case api.ReasonBadRequest:
		return "bad request: "
	}
	return "invalid field: "
}

// origin is the scheme and host the client reached the sandbox at, so that
// result URLs work from wherever the client is.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// isLoopback reports whether a callback target is on this machine: the
// sandbox calls no other.
func isLoopback(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && isLoopbackHost(u.Hostname())
}

// create handles every creation path.
func (s *Server) create(rp *reply, r *http.Request, op api.Operation, token string) {
	body, e := readLenient(rp, r, func(b map[string]any) *catalog.Spec { return specFor(op, b) })
	if e != nil {
		rp.fail(e)
		return
	}
	if errs := catalog.Validate(op, body); errs != nil {
		rp.fail(fieldErrors(errs))
		return
	}
	c := &creation{op: op, params: catalog.WithDefaults(op, body), origin: origin(r), token: token}
	delete(c.params, "code") // a successful body never carries code
	c.callback = s.callbackTarget(pStr(c.params, "callback_url"))
	c.ratio = frameRatio(c.params)
	if op == api.OpMV || op == api.OpPremiumMV {
		c.songSecs = songSeconds(c.params)
	}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		if e := st.checkUploads(c.params, now); e != nil {
			return nil, e
		}
		if e := st.checkServerIDs(c.params); e != nil {
			return nil, e
		}
		src := source{}
		if chained(op) {
			var e *api.Error
			if src, e = st.sourceOf(c.params); e != nil {
				return nil, e
			}
			if e := checkSource(op, c.params, src); e != nil {
				return nil, e
			}
			if src.ratio != "" {
				c.ratio = src.ratio
			}
		}
		c.seconds = plannedSeconds(op, c.params, src, c.songSecs)
		switch op {
		case api.OpAudioClone:
			return s.clone(st, now, c)
		case api.OpAudioTTS:
			return s.tts(st, now, c)
		case api.OpGeneralOneClick:
			return s.newJob(st, now, c)
		}
		return s.newTask(st, now, c)
	})
}

// callbackTarget keeps a callback URL the sandbox may call: loopback only.
func (s *Server) callbackTarget(raw string) string {
	if raw == "" {
		return ""
	}
	if !isLoopback(raw) {
		s.logf("sandbox: not calling back %s: only loopback targets are called", raw)
		return ""
	}
	return raw
}

// draws are every random choice of one unit, drawn in a fixed order from a
// source seeded by (sandbox seed, sequence number): a unit's plan depends
// on nothing else, and a change of fail rate leaves the other draws alone.
type draws struct {
	seed, media                             int64
	created, queue, jitter, fail, pick, cut float64
	miss, offPeak                           float64
}

func drawFor(seed, seq int64) draws {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(seq)))
	return draws{
		seed: 1 + r.Int64N(1<<31-2), media: r.Int64(),
		created: r.Float64(), queue: r.Float64(), jitter: r.Float64(),
		fail: r.Float64(), pick: r.Float64(), cut: r.Float64(),
		miss: r.Float64(), offPeak: r.Float64(),
	}
}

// seededOps echo the seed they used.
func isSeeded(op api.Operation) bool {
	switch op {
	case api.OpReference2Image, api.OpTiming2Audio, api.OpExtend, api.OpText2Audio, api.OpTemplate2Video:
		return true
	}
	return isVideoOp(op)
}

// newUnit numbers a unit and fills what every kind shares. The caller plans
// it and adds it to the state.
func (s *Server) newUnit(st *state, kind string, c *creation, now time.Time) (*unit, draws) {
	st.Seq++
	d := drawFor(st.Seed, st.Seq)
	id := ""
	for salt := uint64(0); salt < creationSalt; salt++ {
		if id = makeID(st.Seed, st.Seq, salt); st.byID[id] == nil {
			break
		}
	}
	if isSeeded(c.op) && kind == kindTask {
		if n, _ := pNum(c.params, "seed"); n == 0 {
			c.params["seed"] = number(d.seed)
		}
	}
	u := &unit{
		ID: id, Seq: st.Seq, Op: c.op, Kind: kind, Params: compact(c.params).(map[string]any),
		MediaSeed: d.media, Ratio: c.ratio, Seconds: c.seconds, Origin: c.origin, State: api.StateCreated,
		Credits: price(c.op, c.params, c.songSecs), OffPeak: pBool(c.params, "off_peak"),
		CreatedAt: now, UpdatedAt: now,
	}
	if isSeeded(c.op) {
		n, _ := pNum(c.params, "seed")
		u.MediaSeed = int64(n)
	}
	if c.callback != "" {
		u.CallbackURL, u.Token = c.callback, c.token
	}
	return u, d
}

// Off-peak scheduling: the service runs off-peak tasks when it has room
// within 48 hours; one in ten does not get room and is cancelled at the end
// of the window.
const (
	offPeakWindow   = 48 * time.Hour
	offPeakMissRate = 0.1
)

// newTask creates an asynchronous task and plans its life.
func (s *Server) newTask(st *state, now time.Time, c *creation) (any, *api.Error) {
	u, d := s.newUnit(st, kindTask, c, now)
	u.Queued = true
	u.QueueAt = now.Add(s.scale(between(500*time.Millisecond, 2*time.Second, d.created)))
	u.EligibleAt = u.QueueAt.Add(s.scale(between(time.Second, 4*time.Second, d.queue)))
	u.ProcDur = s.scale(scaleDur(processing(c.op, c.params, c.songSecs), 0.8+0.5*d.jitter))
	u.PlanDur = u.ProcDur
	if d.fail < s.cfg.FailRate {
		codes := failCodes(c.op, c.params)
		u.Fail = codes[int(d.pick*float64(len(codes)))]
		u.ProcDur = scaleDur(u.ProcDur, 0.3+0.7*d.cut)
	}
	if u.OffPeak {
		window := s.scale(offPeakWindow)
		u.Deadline = now.Add(window)
		if d.miss < offPeakMissRate {
			u.EligibleAt = u.Deadline
		} else {
			u.EligibleAt = u.QueueAt.Add(scaleDur(window, 0.02+0.73*d.offPeak))
		}
	}
	st.add(u)
	if c.op.IsOneClick() {
		return map[string]string{"id": u.ID}, nil
	}
	echo := make(map[string]any, len(c.params)+4)
	for k, v := range c.params {
		echo[k] = v
	}
	echo["task_id"], echo["state"], echo["credits"], echo["created_at"] = u.ID, u.State, u.Credits, stamp(now)
	return echo, nil
}

func between(lo, hi time.Duration, f float64) time.Duration {
	return lo + time.Duration(f*float64(hi-lo))
}

func scaleDur(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }

// scale divides a simulated duration by the speed factor.
func (s *Server) scale(d time.Duration) time.Duration { return scaleDur(d, 1/s.cfg.Speed) }
