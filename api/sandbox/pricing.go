package sandbox

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"clapper/api"
	"clapper/api/catalog"
)

// The sandbox's pricing table (the service publishes none). Credits are
// whole numbers, rounded up; the package doc carries the same table.

// videoRate is credits per second of 720p video, by model.
var videoRate = map[string]float64{
	"svcq1": 5, "svcq1-classic": 5,
	"svcq2": 4, "svcq2-turbo": 4,
	"svcq2-pro": 6, "svcq2-pro-fast": 5,
	"svcq3": 5, "svcq3-turbo": 5, "svcq3-pro-fast": 5,
	"svcq3-pro":   8,
	"svcq3-drama": 7, "svcq3-mix": 7, "svcq3-ad": 7,
	"svcq4-preview": 10,
	"svc2.0":        4,
}

const defaultVideoRate = 5

// videoRateOf is a model's rate; a model without one (a user's, or none)
// pays the default.
func videoRateOf(model string) float64 {
	if rate, ok := videoRate[model]; ok {
		return rate
	}
	return defaultVideoRate
}

// resolutionFactor scales video prices and generation times.
var resolutionFactor = map[string]float64{"360p": 0.5, "540p": 0.75, "720p": 1, "1080p": 1.5, "2k": 2, "4k": 3}

// imagePrice is credits per image at 1080p; 2K and 4K cost more.
var imagePrice = map[string]float64{"svcq1": 6, "svcq2": 4}

var imageResolutionFactor = map[string]float64{"1080p": 1, "2k": 1.5, "4k": 2.5}

// upscalePrice is upscale-new's credits, by target resolution (the notes:
// "upscale by the target resolution").
var upscalePrice = map[string]float64{"1080p": 10, "2k": 20, "4k": 30, "8k": 50}

// qualityPrice is trending-replicate's credits at 720p, by quality.
var qualityPrice = map[string]float64{"fast": 20, "standard": 30, "plus": 40, "medium": 50, "high": 60}

const (
	isRecCredits         = 10  // img2video is_rec: one recommended prompt
	lipSyncPerSecond     = 4   // mv lip_sync, per second of audio
	lipSyncMaxSeconds    = 180 // mv lip_sync is unsupported (and free) beyond 3 minutes
	mvStandardPerSecond  = 3
	mvHighPerSecond      = 5
	premiumMVPerSecond   = 8
	sceneVideoPerSecond  = 4 // multi-scene: creation and every scene edit; composing is free
	lipSyncTaskCredits   = 30
	templateStoryCredits = 40
	timingAudioPerSecond = 2
	ttsCharsPerCredit    = 100
	cloneCredits         = 50
)

// isVideoOp reports the operations whose results are videos of a chosen
// duration, priced and timed per second.
func isVideoOp(op api.Operation) bool {
	switch op {
	case api.OpReference2Video, api.OpImg2Video, api.OpText2Video, api.OpStartEnd2Video:
		return true
	}
	return false
}

// price is the credits a creation costs. audioSeconds is the length of a
// music video's song.
func price(op api.Operation, p map[string]any, audioSeconds float64) int {
	res := strings.ToLower(pStr(p, "resolution"))
	var c float64
	switch op {
	case api.OpReference2Video, api.OpImg2Video, api.OpText2Video, api.OpStartEnd2Video:
		c = math.Ceil(videoRateOf(pStr(p, "model")) * pNumOr(p, "duration", 5) * factor(resolutionFactor, res))
		if pBool(p, "off_peak") {
			c = math.Ceil(c / 2)
		}
		if pBool(p, "is_rec") {
			c += isRecCredits
		}
	case api.OpReference2Image:
		base, ok := imagePrice[pStr(p, "model")]
		if !ok {
			base = imagePrice["svcq2"]
		}
		c = base * factor(imageResolutionFactor, res)
	case api.OpAudioClone:
		c = cloneCredits
		if t := pStr(p, "text"); t != "" {
			c += float64(ttsCredits(t))
		}
	case api.OpAudioTTS:
		c = float64(ttsCredits(pStr(p, "text")))
	case api.OpTiming2Audio:
		c = timingAudioPerSecond * pNumOr(p, "duration", 10)
	case api.OpLipSync:
		c = lipSyncTaskCredits
	case api.OpTemplateStory:
		c = templateStoryCredits
	case api.OpTrendingReplicate:
		q, ok := qualityPrice[pStr(p, "quality")]
		if !ok {
			q = qualityPrice["standard"]
		}
		c = q * factor(resolutionFactor, res)
	case api.OpMV:
		rate := float64(mvStandardPerSecond)
		if pStr(p, "quality") == "high" {
			rate = mvHighPerSecond
		}
		c = rate * audioSeconds * factor(resolutionFactor, res)
		if pBool(p, "lip_sync") && audioSeconds <= lipSyncMaxSeconds {
			c += lipSyncPerSecond * audioSeconds
		}
	case api.OpPremiumMV:
		c = premiumMVPerSecond * audioSeconds * factor(resolutionFactor, res)
	case api.OpGeneralOneClick:
		c = sceneVideoPerSecond * pNumOr(p, "duration", 0)
	case api.OpExtend, api.OpMultiframe, api.OpTemplate2Video:
		// Like img2video of the same length and resolution (service notes):
		// the seconds made, the extension alone for extend.
		secs := pNumOr(p, "duration", 5)
		switch op {
		case api.OpMultiframe:
			secs = keyFrameSeconds(p)
		case api.OpTemplate2Video:
			secs = templateSeconds
		}
		c = videoRateOf(pStr(p, "model")) * secs * factor(resolutionFactor, res)
	case api.OpUpscaleNew:
		c = upscalePrice[strings.ToLower(pStr(p, "upscale_resolution"))]
	case api.OpText2Audio:
		c = timingAudioPerSecond * pNumOr(p, "duration", 10)
	}
	return int(math.Ceil(c))
}

func ttsCredits(text string) int {
	return max(1, (utf8.RuneCountInString(text)+ttsCharsPerCredit-1)/ttsCharsPerCredit)
}

// factor reads a resolution factor; an unset or unknown resolution counts as
// the base one.
func factor(table map[string]float64, res string) float64 {
	if f, ok := table[res]; ok {
		return f
	}
	return 1
}

// processing is how long generation takes at speed 1, before jitter:
// longer for longer and higher-resolution videos and for heavier models.
func processing(op api.Operation, p map[string]any, audioSeconds float64) time.Duration {
	res := strings.ToLower(pStr(p, "resolution"))
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	switch op {
	case api.OpReference2Video, api.OpImg2Video, api.OpText2Video, api.OpStartEnd2Video:
		model := pStr(p, "model")
		speed := 1.0
		switch {
		case strings.HasSuffix(model, "-turbo"), strings.HasSuffix(model, "-fast"):
			speed = 0.6
		case strings.HasSuffix(model, "-pro"), strings.HasPrefix(model, "svcq4"):
			speed = 1.3
		}
		return sec(20 + pNumOr(p, "duration", 5)*6*factor(videoTimeFactor, res)*speed)
	case api.OpReference2Image:
		return sec(15 * factor(imageResolutionFactor, res))
	case api.OpTiming2Audio:
		return sec(5 + pNumOr(p, "duration", 10))
	case api.OpLipSync:
		return sec(60)
	case api.OpTemplateStory:
		return sec(90)
	case api.OpTrendingReplicate:
		q, ok := qualityPrice[pStr(p, "quality")]
		if !ok {
			q = qualityPrice["standard"]
		}
		return sec(3 * q * factor(videoTimeFactor, res))
	case api.OpMV:
		return sec(120 + 1.5*audioSeconds)
	case api.OpPremiumMV:
		return sec(180 + 2*audioSeconds)
	case api.OpExtend, api.OpMultiframe:
		secs := pNumOr(p, "duration", 5)
		if op == api.OpMultiframe {
			secs = keyFrameSeconds(p)
		}
		return sec(20 + secs*6*factor(videoTimeFactor, res))
	case api.OpUpscaleNew:
		return sec(30 * factor(videoTimeFactor, strings.ToLower(pStr(p, "upscale_resolution"))))
	case api.OpTemplate2Video:
		return sec(60)
	case api.OpText2Audio:
		return sec(5 + pNumOr(p, "duration", 10))
	}
	return sec(30)
}

// videoTimeFactor scales generation time by resolution: pixels cost time.
var videoTimeFactor = map[string]float64{"360p": 0.5, "540p": 0.7, "720p": 1, "1080p": 1.6, "2k": 2.5, "4k": 4, "8k": 7}

// sceneProcessing and composeProcessing time the multi-scene sub-jobs.
func sceneProcessing(seconds int) time.Duration {
	return time.Duration(30+5*seconds) * time.Second
}

func composeProcessing(totalSeconds int) time.Duration {
	return 10*time.Second + time.Duration(totalSeconds)*200*time.Millisecond
}

// failCodes are the err_codes a failed task may carry, by operation: the
// policy and input-check reasons the service gives for what it generated
// or was given.
func failCodes(op api.Operation, p map[string]any) []string {
	codes := []string{api.ReasonCreationPolicyViolation, api.ReasonInternalServiceFailure}
	if pStr(p, "prompt") != "" {
		codes = append(codes, api.ReasonTaskPromptPolicyViolation)
	}
	switch op {
	case api.OpLipSync:
		codes = append(codes, api.ReasonImageCheckFace)
	case api.OpTemplateStory, api.OpTrendingReplicate, api.OpTemplate2Video:
		codes = append(codes, api.ReasonImageObjectsUndetected)
	case api.OpMV:
		if pBool(p, "lip_sync") {
			codes = append(codes, api.ReasonImageCheckFace)
		}
	case api.OpPremiumMV:
		switch pStr(p, "premium_mv_mode") {
		case "dance":
			codes = append(codes, api.ReasonImageCheckBodyJoints)
		case "sing", "sing_perform":
			codes = append(codes, api.ReasonImageCheckFace)
		}
	case api.OpAudioClone:
		codes = []string{api.ReasonAuditSubmitIllegal, api.ReasonInternalServiceFailure}
	case api.OpAudioTTS:
		codes = []string{api.ReasonInternalServiceFailure}
	}
	return codes
}

// Quote is what the sandbox will charge for a request, from the same table
// a creation is charged by; a music video's price follows its song's
// length, read from a WAV data URI or assumed as the sandbox does.
func Quote(op api.Operation, body map[string]any) int {
	p := catalog.WithDefaults(op, body)
	secs := 0.0
	if op == api.OpMV || op == api.OpPremiumMV {
		secs = songSeconds(p)
	}
	return price(op, p, secs)
}
