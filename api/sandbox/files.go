package sandbox

import (
	"crypto/hmac"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/sandbox/media"
	"clapper/assets"
)

// serveFile answers a signed result URL with the file, generated afresh from
// the task's parameters: the state keeps no media bytes.
func (s *Server) serveFile(rp *reply, r *http.Request, rest string) {
	id, name, ok := strings.Cut(rest, "/")
	if !ok || id == "" || strings.Contains(name, "/") {
		rp.fail(notFound(r.URL.Path))
		return
	}
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	if err != nil {
		rp.fail(apiError(api.ReasonForbidden, "result URL is not signed", "exp"))
		return
	}
	var u unit
	var secret []byte
	var now time.Time
	err = s.withState(func(st *state, t time.Time) error {
		found := st.byID[id]
		if found != nil {
			u = *found
		}
		secret, now = st.Secret, t
		return nil
	})
	if err != nil {
		rp.fail(internalError(err))
		return
	}
	if !hmac.Equal([]byte(q.Get("sig")), []byte(fileSignature(secret, id, name, exp))) {
		rp.fail(apiError(api.ReasonForbidden, "result URL signature is invalid", "sig"))
		return
	}
	if now.After(time.Unix(exp, 0)) {
		rp.fail(apiError(api.ReasonForbidden, "result URL expired at "+stamp(time.Unix(exp, 0)), "exp"))
		return
	}
	if u.ID == "" || u.State != api.StateSuccess || !slices.Contains(files(&u), name) {
		rp.fail(apiError(api.ReasonCreationNotFound, "no such result: "+id+"/"+name, "id"))
		return
	}
	ctype, data, err := render(&u, name)
	if err != nil {
		rp.fail(internalError(err))
		return
	}
	h := rp.w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Cache-Control", "private, max-age=60")
	rp.w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = rp.w.Write(data)
	}
}

// render generates one result file of a unit.
func render(u *unit, name string) (string, []byte, error) {
	switch name {
	case fileVideo, fileWatermarked:
		return "video/mp4", assets.Video(u.Ratio), nil
	case fileCover:
		w, h, err := frameSize(u)
		if err != nil {
			return "", nil, err
		}
		b, err := media.JPEGCover(w, h, u.MediaSeed)
		return "image/jpeg", b, err
	case fileImage:
		w, h, err := frameSize(u)
		if err != nil {
			return "", nil, err
		}
		b, err := media.PNG(w, h, u.MediaSeed, pStr(u.Params, "prompt"))
		return "image/png", b, err
	case fileTimeline:
		dur := pNumOr(u.Params, "duration", 10)
		events := timeline(u.Params)
		if u.Op == api.OpText2Audio {
			// One sound from its prompt, all along.
			events = []media.Event{{From: 0, To: dur, Prompt: pStr(u.Params, "prompt")}}
		}
		return "audio/wav", media.TimelineWAV(dur, events, u.MediaSeed), nil
	case fileSpeech:
		p := u.Params
		b, _ := media.SpeechWAV(pStr(p, "text"), pNumOr(p, "voice_setting_speed", 1),
			int(pNumOr(p, "voice_setting_pitch", 0)), int(pNumOr(p, "voice_setting_volume", 0)), u.MediaSeed)
		return "audio/wav", b, nil
	case fileDemo:
		b, _ := media.SpeechWAV(pStr(u.Params, "text"), 1, 0, 0, u.MediaSeed)
		return "audio/wav", b, nil
	}
	return "", nil, fmt.Errorf("no generator for %s", name)
}

// frameSize is the pixel size of a unit's images: its frame shape at its
// resolution (720p when it has none, as music videos and scenes default to).
func frameSize(u *unit) (int, int, error) {
	res := pStr(u.Params, "resolution")
	if res == "" {
		res = "720p"
	}
	return media.Dimensions(u.Ratio, res)
}

func timeline(p map[string]any) []media.Event {
	list, _ := p["timing_prompts"].([]any)
	events := make([]media.Event, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		events = append(events, media.Event{From: pNumOr(m, "from", 0), To: pNumOr(m, "to", 0), Prompt: pStr(m, "prompt")})
	}
	return events
}
