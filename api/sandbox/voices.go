package sandbox

import (
	"hash/fnv"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// voiceSeed makes a voice sound the same in every synthesis.
func voiceSeed(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int64(h.Sum64() >> 1)
}

// cloneEcho is the audio-clone answer; voice_id is omitted when the task failed.
type cloneEcho struct {
	TaskID    string `json:"task_id"`
	State     string `json:"state"`
	ErrCode   string `json:"err_code,omitempty"`
	VoiceID   string `json:"voice_id,omitempty"`
	DemoAudio string `json:"demo_audio"`
	Credits   int    `json:"credits"`
	Payload   string `json:"payload"`
	CreatedAt string `json:"created_at"`
}

// clone registers a voice at once: the sandbox answers audio-clone settled.
func (s *Server) clone(st *state, now time.Time, c *creation) (any, *api.Error) {
	id := pStr(c.params, "voice_id")
	if _, taken := st.Voices[id]; taken || catalog.IsSystemVoice(id) {
		return nil, apiError(api.ReasonConflict, "voice_id already exists: "+id, "voice_id")
	}
	u, d := s.newUnit(st, kindTask, c, now)
	u.MediaSeed = voiceSeed(id)
	s.settleNow(u, d, now)
	if u.State == api.StateSuccess {
		st.Voices[id] = &voice{ID: id, TaskID: u.ID, CreatedAt: now}
	}
	st.add(u)
	e := cloneEcho{TaskID: u.ID, State: u.State, ErrCode: u.ErrCode, Credits: u.reportedCredits(),
		Payload: pStr(u.Params, "payload"), CreatedAt: stamp(now)}
	if u.State == api.StateSuccess {
		e.VoiceID = id
		if cr, ok := creationOf(st, u, c.signer(st, now)); ok {
			e.DemoAudio = cr.URL
		}
	}
	return e, nil
}

// ttsEcho is the audio-tts answer.
type ttsEcho struct {
	TaskID    string `json:"task_id"`
	State     string `json:"state"`
	ErrCode   string `json:"err_code,omitempty"`
	FileURL   string `json:"file_url"`
	Credits   int    `json:"credits"`
	Payload   string `json:"payload"`
	CreatedAt string `json:"created_at"`
}

// tts synthesises at once. An unknown (or expired) voice is not a malformed
// request, so it is accepted and the task fails, as a real synthesis would.
// A success keeps a cloned voice for good: advance deleted it already if its
// 168 h were over, so a use that comes too late finds no voice.
func (s *Server) tts(st *state, now time.Time, c *creation) (any, *api.Error) {
	id := pStr(c.params, "voice_setting_voice_id")
	v, cloned := st.Voices[id]
	known := cloned || catalog.IsSystemVoice(id)
	u, d := s.newUnit(st, kindTask, c, now)
	u.MediaSeed = voiceSeed(id)
	if known {
		s.settleNow(u, d, now)
	} else {
		u.ErrCode, u.ErrMsg, u.Refunded = api.ReasonFieldInvalid, "voice not found: "+id, true
		u.State = api.StateFailed
	}
	if cloned && u.State == api.StateSuccess {
		v.LastUsed, v.Kept = now, true
	}
	st.add(u)
	e := ttsEcho{TaskID: u.ID, State: u.State, ErrCode: u.ErrCode, Credits: u.reportedCredits(),
		Payload: pStr(u.Params, "payload"), CreatedAt: stamp(now)}
	if cr, ok := creationOf(st, u, c.signer(st, now)); ok {
		e.FileURL = cr.URL
	}
	return e, nil
}

// settleNow ends a synchronous task at once, failing it per the fail rate.
func (s *Server) settleNow(u *unit, d draws, now time.Time) {
	u.State = api.StateSuccess
	if d.fail < s.cfg.FailRate {
		codes := failCodes(u.Op, u.Params)
		u.ErrCode = codes[int(d.pick*float64(len(codes)))]
		u.ErrMsg, u.Refunded, u.State = api.Explain(u.ErrCode, 0), true, api.StateFailed
	}
	u.StartedAt, u.EndAt = now, now
}
