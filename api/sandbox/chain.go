package sandbox

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
)

// The operations of 2026 that work on a video already made (extend,
// upscale-new) read it here: a creation or a result URL of this sandbox is
// known with its length, resolution and shape; any other is taken on
// trust, as the sandbox fetches nothing.

// Assumed of a source video the sandbox did not make: the service's usual
// 5 s at 720p, 16:9.
const (
	unknownSourceSeconds = 5
	unknownSourceRes     = "720p"
)

// templateSeconds is the length of a template2video result: the notes give
// none, and templates make short clips like the service's default 5 s.
const templateSeconds = 5

// source is the video an extend or upscale-new request names.
type source struct {
	seconds float64
	res     string
	ratio   string
}

// resolutionRank orders resolutions from low to high; upscaling must climb.
var resolutionRank = map[string]int{"360p": 1, "540p": 2, "720p": 3, "1080p": 4, "2k": 5, "4k": 6, "8k": 7}

// sourceOf reads the video a request names: by video_creation_id (which
// wins when both are given), else by a result URL of this sandbox. A
// creation of this sandbox that is not a finished video is refused naming
// the field.
func (st *state) sourceOf(p map[string]any) (source, *api.Error) {
	field, u := "video_creation_id", (*unit)(nil)
	if id := pStr(p, field); id != "" {
		u = st.byCreation[id]
	} else {
		field = "video_url"
		u = st.byFileURL(pStr(p, field))
	}
	if u == nil {
		return source{seconds: unknownSourceSeconds, res: unknownSourceRes, ratio: "16:9"}, nil
	}
	switch {
	case u.State != api.StateSuccess:
		return source{}, apiError(api.ReasonFieldInvalid, fmt.Sprintf("%s: task %s has not succeeded (it is %s); only a finished video can be used", field, u.ID, u.State), field)
	case catalog.ResultMedia(u.Op) != catalog.MediaVideo:
		return source{}, apiError(api.ReasonFieldInvalid, fmt.Sprintf("%s: task %s made %s, not a video", field, u.ID, catalog.OutputOf(u.Op)), field)
	}
	return source{seconds: resultSeconds(u), res: resultResolution(u), ratio: u.Ratio}, nil
}

// byFileURL is the unit whose result file a URL of this sandbox serves.
func (st *state) byFileURL(raw string) *unit {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	rest, ok := strings.CutPrefix(u.Path, filesPrefix)
	if !ok {
		return nil
	}
	id, _, _ := strings.Cut(rest, "/")
	return st.byID[id]
}

// checkSource holds a source to the operation's rules: extend takes 4 s to
// 1 min; upscale-new at most 300 s, to a resolution above the source's.
func checkSource(op api.Operation, p map[string]any, src source) *api.Error {
	field := "video_creation_id"
	if pStr(p, field) == "" {
		field = "video_url"
	}
	secs := trimSeconds(src.seconds)
	switch op {
	case api.OpExtend:
		if src.seconds < 4 || src.seconds > 60 {
			return apiError(api.ReasonFieldInvalid, fmt.Sprintf("%s: the video is %s s long; extend takes a video of 4 s to 1 min", field, secs), field)
		}
	case api.OpUpscaleNew:
		if src.seconds > 300 {
			return apiError(api.ReasonFieldInvalid, fmt.Sprintf("%s: the video is %s s long; upscale-new takes at most 300 s", field, secs), field)
		}
		target := pStr(p, "upscale_resolution")
		if resolutionRank[strings.ToLower(target)] <= resolutionRank[strings.ToLower(src.res)] {
			var above []string
			for _, r := range catalog.UpscaleResolutions {
				if resolutionRank[strings.ToLower(r)] > resolutionRank[strings.ToLower(src.res)] {
					above = append(above, r)
				}
			}
			msg := fmt.Sprintf("upscale_resolution: %s is not above the source video's %s", target, src.res)
			if len(above) > 0 {
				msg += "; choose " + strings.Join(above, ", ")
			}
			return apiError(api.ReasonFieldInvalid, msg, "upscale_resolution")
		}
	}
	return nil
}

func trimSeconds(s float64) string { return fmt.Sprintf("%g", math.Round(s*100)/100) }

// resultSeconds is how long a unit's result is: what it recorded when it
// was made, else its duration (a unit from an older state file).
func resultSeconds(u *unit) float64 {
	if u.Seconds > 0 {
		return u.Seconds
	}
	return pNumOr(u.Params, "duration", unknownSourceSeconds)
}

// resultResolution is the resolution of a unit's video.
func resultResolution(u *unit) string {
	if r := pStr(u.Params, "upscale_resolution"); r != "" {
		return r
	}
	if r := pStr(u.Params, "resolution"); r != "" {
		return r
	}
	return unknownSourceRes
}

// plannedSeconds is how long the result of a creation will be: an
// extended video is its source and the extension, a multiframe video the
// sum of its key frames, an upscaled one its source's length.
func plannedSeconds(op api.Operation, p map[string]any, src source, songSecs float64) float64 {
	switch op {
	case api.OpExtend:
		return src.seconds + pNumOr(p, "duration", 5)
	case api.OpUpscaleNew:
		return src.seconds
	case api.OpMultiframe:
		return keyFrameSeconds(p)
	case api.OpTemplate2Video:
		return templateSeconds
	case api.OpMV, api.OpPremiumMV:
		return songSecs
	}
	return pNumOr(p, "duration", 0)
}

// keyFrameSeconds sums a multiframe request's key frames, one sent without
// a duration counting catalog.KeyFrameDefault.
func keyFrameSeconds(p map[string]any) float64 {
	frames, _ := p["image_settings"].([]any)
	total := 0.0
	for _, f := range frames {
		kf, _ := f.(map[string]any)
		total += pNumOr(kf, "duration", catalog.KeyFrameDefault)
	}
	return total
}

// chained reports the operations that name a video already made.
func chained(op api.Operation) bool {
	return slices.Contains([]api.Operation{api.OpExtend, api.OpUpscaleNew}, op)
}
