package sandbox

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// maxSceneSeconds splits a multi-scene video: each scene is at most this long.
const maxSceneSeconds = 10

// sceneLengths splits a total duration into near-equal whole-second scenes.
func sceneLengths(total int) []int {
	n := max(1, (total+maxSceneSeconds-1)/maxSceneSeconds)
	out := make([]int, n)
	for i := range out {
		out[i] = total / n
		if i < total%n {
			out[i]++
		}
	}
	return out
}

// newJob creates a multi-scene job: its scenes generate side by side (a job
// reports no queueing, so the account's task limit does not hold them
// back), then the first composition runs.
func (s *Server) newJob(st *state, now time.Time, c *creation) (any, *api.Error) {
	j, _ := s.newUnit(st, kindJob, c, now)
	total := int(pNumOr(c.params, "duration", maxSceneSeconds))
	prompt := pStr(c.params, "prompt")
	st.add(j)
	// The job's callback reports the job; its scenes report to no one.
	quiet := *c
	quiet.callback = ""
	var needs []string
	for i, secs := range sceneLengths(total) {
		p := map[string]any{
			"prompt":       "Scene " + strconv.Itoa(i+1) + ": " + prompt,
			"duration":     number(int64(secs)),
			"aspect_ratio": c.ratio,
		}
		sc := s.newSubJob(st, kindScene, j, &quiet, p, now, true)
		sc.Index = i
		j.Scenes = append(j.Scenes, []string{sc.ID})
		needs = append(needs, sc.ID)
	}
	s.newCompose(st, j, &quiet, needs, total, now)
	return map[string]string{"id": j.ID}, nil
}

// newSubJob creates one scene version or composition of job j. Its callback
// and signing token are the ones of the call that created it.
func (s *Server) newSubJob(st *state, kind string, j *unit, c *creation, p map[string]any, now time.Time, mayFail bool) *unit {
	sub := &creation{op: api.OpGeneralOneClick, params: p, origin: c.origin, token: c.token, callback: c.callback, ratio: j.Ratio}
	u, d := s.newUnit(st, kind, sub, now)
	u.Parent, u.Credits = j.ID, 0
	u.QueueAt = now.Add(s.scale(between(500*time.Millisecond, 2*time.Second, d.created)))
	secs := int(pNumOr(p, "duration", 0))
	if kind == kindScene {
		u.ProcDur = s.scale(scaleDur(sceneProcessing(secs), 0.8+0.5*d.jitter))
	}
	if mayFail && d.fail < s.cfg.FailRate {
		u.Fail = []string{api.ReasonCreationPolicyViolation, api.ReasonInternalServiceFailure}[int(d.pick*2)]
		u.ProcDur = scaleDur(u.ProcDur, 0.3+0.7*d.cut)
	}
	st.add(u)
	st.touch(j) // its list of versions grows
	return u
}

func (s *Server) newCompose(st *state, j *unit, c *creation, needs []string, total int, now time.Time) *unit {
	p := map[string]any{"job_ids": toAny(needs), "duration": number(int64(total))}
	u := s.newSubJob(st, kindCompose, j, c, p, now, false)
	u.ProcDur = s.scale(composeProcessing(total))
	u.Index = len(j.Scenes)
	u.Needs = needs
	j.Composes = append(j.Composes, u.ID)
	return u
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// jobFor finds a multi-scene job by id.
func jobFor(st *state, id string) (*unit, *api.Error) {
	j := st.byID[id]
	if j == nil || j.Kind != kindJob {
		return nil, apiError(api.ReasonTaskNotFound, "multi-scene job not found: id "+id, "id")
	}
	return j, nil
}

// sceneOf finds the scene index of a scene version of job j.
func sceneOf(j *unit, jobID string) (int, bool) {
	for i, versions := range j.Scenes {
		if slices.Contains(versions, jobID) {
			return i, true
		}
	}
	return 0, false
}

// subJobBody reads and validates the body of /edit or /compose.
func (s *Server) subJobBody(rp *reply, r *http.Request, spec *catalog.Spec) (map[string]any, bool) {
	body, e := readLenient(rp, r, func(map[string]any) *catalog.Spec { return spec })
	if e != nil {
		rp.fail(e)
		return nil, false
	}
	if errs := spec.Validate(body); errs != nil {
		rp.fail(fieldErrors(errs))
		return nil, false
	}
	return body, true
}

// edit regenerates one scene with a new prompt: a new version joins the
// scene's history. A scene whose newest version is still running cannot be
// edited (OperationInProcess).
func (s *Server) edit(rp *reply, r *http.Request, jobID, token string) {
	body, ok := s.subJobBody(rp, r, catalog.EditSpec())
	if !ok {
		return
	}
	c := &creation{op: api.OpGeneralOneClick, origin: origin(r), token: token,
		callback: s.callbackTarget(pStr(body, "callback_url"))}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		j, e := jobFor(st, jobID)
		if e != nil {
			return nil, e
		}
		target := pStr(body, "job_id")
		i, ok := sceneOf(j, target)
		if !ok {
			return nil, apiError(api.ReasonFieldInvalid, "invalid field: job_id (not a scene job of "+jobID+": "+target+")", "job_id")
		}
		versions := j.Scenes[i]
		if last := st.byID[versions[len(versions)-1]]; !last.terminal() {
			return nil, apiError(api.ReasonOperationInProcess, "scene "+strconv.Itoa(i)+" is still "+last.State+"; edit it when it is done", "job_id")
		}
		secs := pNumOr(st.byID[versions[0]].Params, "duration", maxSceneSeconds)
		p := map[string]any{"prompt": pStr(body, "prompt"), "duration": number(int64(secs)), "aspect_ratio": j.Ratio}
		if cb := pStr(body, "callback_url"); cb != "" {
			p["callback_url"] = cb
		}
		u := s.newSubJob(st, kindScene, j, c, p, now, true)
		u.Index = i
		u.Credits = price(api.OpGeneralOneClick, p, 0)
		j.Scenes[i] = append(j.Scenes[i], u.ID)
		st.settleJob(j, now)
		return map[string]string{"id": u.ID}, nil
	})
}

// compose composes the chosen scene versions; a scene not named is taken at
// its newest successful version. Every named job must be a successful scene
// version of this job, at most one per scene, and no composition may be
// running.
func (s *Server) compose(rp *reply, r *http.Request, jobID, token string) {
	body, ok := s.subJobBody(rp, r, catalog.ComposeSpec())
	if !ok {
		return
	}
	c := &creation{op: api.OpGeneralOneClick, origin: origin(r), token: token,
		callback: s.callbackTarget(pStr(body, "callback_url"))}
	chosen := pStrings(body, "job_ids")
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		j, e := jobFor(st, jobID)
		if e != nil {
			return nil, e
		}
		if last := st.byID[j.Composes[len(j.Composes)-1]]; !last.terminal() {
			return nil, apiError(api.ReasonOperationInProcess, "a composition of "+jobID+" is still "+last.State, "job_ids")
		}
		picks := make([]string, len(j.Scenes))
		for _, id := range chosen {
			i, ok := sceneOf(j, id)
			switch {
			case !ok:
				return nil, apiError(api.ReasonFieldInvalid, "invalid field: job_ids ("+id+" is not a scene job of "+jobID+")", "job_ids")
			case picks[i] != "":
				return nil, apiError(api.ReasonFieldInvalid, "invalid field: job_ids (two versions of scene "+strconv.Itoa(i)+")", "job_ids")
			case !st.byID[id].terminal():
				return nil, apiError(api.ReasonOperationInProcess, "scene job "+id+" is still "+st.byID[id].State, "job_ids")
			case st.byID[id].State != api.StateSuccess:
				return nil, apiError(api.ReasonFieldInvalid, "invalid field: job_ids (scene job "+id+" failed)", "job_ids")
			}
			picks[i] = id
		}
		total := 0
		for i := range picks {
			if picks[i] == "" {
				u := st.latestSuccess(j.Scenes[i])
				if u == nil {
					return nil, apiError(api.ReasonFieldInvalid, "invalid field: job_ids (scene "+strconv.Itoa(i)+" has no successful version; edit it first)", "job_ids")
				}
				picks[i] = u.ID
			}
			total += int(pNumOr(st.byID[picks[i]].Params, "duration", 0))
		}
		u := s.newCompose(st, j, c, picks, total, now)
		if cb := pStr(body, "callback_url"); cb != "" {
			u.Params["callback_url"] = cb
		}
		st.settleJob(j, now)
		return map[string]string{"id": u.ID}, nil
	})
}

// getJob answers the multi-scene job record.
func (s *Server) getJob(rp *reply, r *http.Request, jobID string) {
	o := origin(r)
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		j, e := jobFor(st, jobID)
		if e != nil {
			return nil, e
		}
		return jobRecord(st, j, signer{secret: st.Secret, origin: o, now: now}), nil
	})
}
