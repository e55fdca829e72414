package catalog

import (
	"strings"

	"clapper/api"
)

// This file is the spec's tables, transcribed once. Each builder names the
// section of spec/service-api.md it comes from.

// Model families, as the spec groups them.
func isQ1Family(m string) bool { return m == "svcq1" || m == "svcq1-classic" }
func isQ2Family(m string) bool { return m == "svcq2" || strings.HasPrefix(m, "svcq2-") }
func isQ3Family(m string) bool { return m == "svcq3" || strings.HasPrefix(m, "svcq3-") }

// offPeakNeedsSilence: "off_peak ... for svcq2, svcq1 and 2.0-series models
// only when audio is false" (Shared input rules).
func offPeakNeedsSilence(m string) bool { return isQ1Family(m) || isQ2Family(m) }

const (
	maxPayload     = 1048576
	maxImageBytes  = 10 << 20 // base64-decoded under 10 MB (service notes, Limits)
	maxVideoBytes  = 20 << 20 // reference videos: base64-decoded under 20 MB
	maxAudioBytes  = 20 << 20 // music-video audio: base64-decoded under 20 MB
	maxLipRefBytes = 10 << 20 // mv lip_ref_url: at most 10 MB
	// MaxBodyBytes bounds the whole HTTP request body (Shared input rules).
	MaxBodyBytes = 20 << 20
)

var (
	ratios5      = []string{"1:1", "9:16", "16:9", "3:4", "4:3"}
	ratiosAuto   = []string{"1:1", "9:16", "16:9", "3:4", "4:3", "auto"}
	res3         = []string{"540p", "720p", "1080p"}
	res2         = []string{"720p", "1080p"}
	resAll       = []string{"540p", "720p", "1080p", "2K", "4K"} // vocabulary where a model's options are not shown
	amplitudes   = []string{"auto", "small", "medium", "large"}
	emotions     = []string{"happy", "sad", "angry", "fearful", "disgusted", "surprised", "calm"}
	stories      = []string{"love_story", "workday_feels", "monkey_king", "pigsy", "monk_tang", "one_shot"}
	mvLanguages  = []string{"en", "zh"}
	pmvLanguages = []string{"en", "zh", "ja", "ko", "vi", "th", "id", "ms", "tl", "hi", "ar", "fr", "de", "es", "pt", "ru", "it", "nl", "sv", "da", "fi", "no", "el", "pl", "cs", "hu", "ro", "bg", "hr", "sk"}
	pmvModes     = []string{"sing", "sing_perform", "perform", "dance"}
	lipRefImages = []string{"jpeg", "jpg", "png", "bmp", "webp"}
)

// maxSeed is the largest integer every JSON client reads exactly (2^53-1).
const maxSeed = 1<<53 - 1

const (
	wmHelp       = "1 top-left, 2 top-right, 3 bottom-right, 4 bottom-left"
	wmHelpQ1Text = "1 bottom-right, 2 bottom-left, 3 top-right, 4 top-left"
)

// Spec is everything one model of one operation accepts.
type Spec struct {
	Operation api.Operation
	Model     string // "" for operations without a model field
	// Source is the layer that introduced the model.
	Source Layer
	// Cite is where that layer read the model, when it says.
	Cite   string
	Fields []Field
	rules  []rule
	// base is the spec model whose tables and rules this model starts
	// from: itself for the spec's models, the "like" of an added one.
	base string
}

// Field returns the named field, if the model accepts it.
func (s *Spec) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// subject is what who-accepts-what messages name: the model, or the
// operation when it has no model.
func (s *Spec) subject() string {
	if s.Model != "" {
		return s.Model
	}
	return string(s.Operation)
}

type rule func(s *Spec, b body) []FieldError

// OperationInfo describes an operation for menus and `clapper models`.
type OperationInfo struct {
	Operation api.Operation
	// Name is the operation in people's words, short: "Music video" for mv.
	Name   string
	Title  string
	Models []string // nil when the operation has no model field
}

var operationNames = map[api.Operation]string{
	api.OpReference2Video:   "From references",
	api.OpImg2Video:         "Animate an image",
	api.OpText2Video:        "Video from text",
	api.OpStartEnd2Video:    "First to last frame",
	api.OpReference2Image:   "Make an image",
	api.OpAudioClone:        "Clone a voice",
	api.OpAudioTTS:          "Speech",
	api.OpTiming2Audio:      "Sound effects",
	api.OpLipSync:           "Lip sync",
	api.OpTemplateStory:     "Template story",
	api.OpTrendingReplicate: "Copy a trend",
	api.OpMV:                "Music video",
	api.OpPremiumMV:         "Premium music video",
	api.OpGeneralOneClick:   "Multi-scene video",
	api.OpExtend:            "Extend a video",
	api.OpMultiframe:        "Key frames",
	api.OpUpscaleNew:        "Upscale a video",
	api.OpText2Audio:        "Sound from text",
	api.OpTemplate2Video:    "Video template",
}

var operationTitles = map[api.Operation]string{
	api.OpReference2Video:   "Video from reference images, subjects, videos, sounds",
	api.OpImg2Video:         "Video from one first-frame image",
	api.OpText2Video:        "Video from text",
	api.OpStartEnd2Video:    "Video from a first and a last frame",
	api.OpReference2Image:   "Image from text and/or reference images",
	api.OpAudioClone:        "Clone a voice (optional preview)",
	api.OpAudioTTS:          "Speech synthesis",
	api.OpTiming2Audio:      "Sound effects on a timeline",
	api.OpLipSync:           "Lip-synchronised video",
	api.OpTemplateStory:     "Template video",
	api.OpTrendingReplicate: "Replicate a trending video with new products or models",
	api.OpMV:                "Music video (1.0)",
	api.OpPremiumMV:         "Premium music video",
	api.OpGeneralOneClick:   "Multi-scene video with editable scenes",
	api.OpExtend:            "Lengthen a video by 1-7 s, optionally toward an end frame",
	api.OpMultiframe:        "Video through 2-9 key frames from a start image",
	api.OpUpscaleNew:        "Upscale a video to 1080p, 2K, 4K or 8K",
	api.OpText2Audio:        "Sound effects or music from a prompt",
	api.OpTemplate2Video:    "Video from a template and your photos",
}

var operationModels = map[api.Operation][]string{
	api.OpReference2Video: {"svcq1", "svcq2", "svcq2-pro", "svcq3", "svcq3-turbo", "svcq3-drama", "svcq3-mix", "svcq3-ad", "svcq4-preview"},
	api.OpImg2Video:       {"svcq3-pro-fast", "svcq3-turbo", "svcq3-pro", "svcq1", "svcq1-classic"},
	api.OpText2Video:      {"svcq3-pro", "svcq3-turbo", "svcq1"},
	api.OpStartEnd2Video:  {"svcq2-turbo", "svcq2-pro", "svcq2-pro-fast", "svcq3-pro", "svcq3-turbo", "svcq3-pro-fast", "svcq1", "svcq1-classic"},
	api.OpReference2Image: {"svcq2", "svcq1"},
	api.OpTiming2Audio:    {"audio1.0"},
	api.OpExtend:          {"svcq2-pro", "svcq2-turbo"},
	api.OpMultiframe:      {"svcq2-pro", "svcq2-turbo"},
	api.OpText2Audio:      {"audio1.0"},
}

var build = map[api.Operation]func(*Spec){
	api.OpReference2Video:   buildReference2Video,
	api.OpImg2Video:         buildImg2Video,
	api.OpText2Video:        buildText2Video,
	api.OpStartEnd2Video:    buildStartEnd2Video,
	api.OpReference2Image:   buildReference2Image,
	api.OpAudioClone:        buildAudioClone,
	api.OpAudioTTS:          buildAudioTTS,
	api.OpTiming2Audio:      buildTiming2Audio,
	api.OpLipSync:           buildLipSync,
	api.OpTemplateStory:     buildTemplateStory,
	api.OpTrendingReplicate: buildTrendingReplicate,
	api.OpMV:                buildMV,
	api.OpPremiumMV:         buildPremiumMV,
	api.OpGeneralOneClick:   buildGeneralOneClick,
	api.OpExtend:            buildExtend,
	api.OpMultiframe:        buildMultiframe,
	api.OpUpscaleNew:        buildUpscaleNew,
	api.OpText2Audio:        buildText2Audio,
	api.OpTemplate2Video:    buildTemplate2Video,
}

// POST /ent/v2/reference2video: request fields and model table.
func buildReference2Video(s *Spec) {
	m := s.Model
	type row struct {
		minImg, maxImg   int
		dur, dMin, dMax  int
		res              string
		resOpts, ratios  []string
		anyRatio, audio  bool
		offPeak, noBGM   bool
		subjects, sounds bool
	}
	rows := map[string]row{
		"svcq1":         {1, 7, 5, 5, 5, "1080p", []string{"1080p"}, ratiosAuto, false, false, true, false, true, false},
		"svcq2":         {1, 7, 5, 1, 10, "720p", res3, ratiosAuto, true, false, true, false, true, false},
		"svcq2-pro":     {1, 7, 5, 1, 10, "720p", res3, ratiosAuto, true, false, true, false, true, false},
		"svcq3":         {1, 0, 5, 3, 16, "720p", res3, ratiosAuto, false, true, true, false, true, false},
		"svcq3-turbo":   {1, 0, 5, 3, 16, "720p", res3, ratiosAuto, false, true, true, false, true, false},
		"svcq3-drama":   {1, 0, 8, 2, 16, "1080p", res2, []string{"16:9", "9:16", "auto"}, false, true, false, false, true, true},
		"svcq3-mix":     {1, 0, 5, 3, 15, "720p", res2, ratiosAuto, false, true, false, false, false, false},
		"svcq3-ad":      {1, 0, 5, 3, 15, "720p", res2, ratiosAuto, false, true, false, false, true, false},
		"svcq4-preview": {1, 15, 5, 3, 16, "720p", []string{"540p", "720p", "1080p", "2K", "4K"}, []string{"16:9", "1:1", "9:16", "3:4", "4:3"}, false, true, false, true, false, true},
	}
	r := rows[m]
	s.Fields = []Field{
		modelField(operationModels[s.Operation]),
		imagesField(r.minImg, r.maxImg, "reference images (the images form)"),
	}
	s.Fields[1].Required = false // or subjects: imagesOrSubjects decides
	if m == "svcq2-pro" {
		s.Fields = append(s.Fields, Field{Name: "videos", Kind: KindMediaList, Media: MediaVideo, MinItems: 1, MaxItems: 2,
			MaxDecoded: maxVideoBytes, MaxSeconds: 8, VideoShape: true, Help: "reference videos: one of at most 8 s or two of 5 s; mp4, avi, mov"})
	}
	if r.subjects {
		max := 7
		if m == "svcq2-pro" {
			max = 6 // 4 image or text subjects plus 2 video subjects; the split is checked by subjectRules
		}
		s.Fields = append(s.Fields,
			Field{Name: "subjects", Kind: KindSubjects, MinItems: 1, MaxItems: max, Help: "named subjects referenced in the prompt as [@name] (the subjects form)"},
			boolField("auto_subjects", false, "use the smart subject library"))
	}
	if r.sounds {
		f := Field{Name: "sounds", Kind: KindMediaList, Media: MediaAudio, MaxDecoded: maxAudioBytes, Help: "sound references"}
		if m == "svcq4-preview" {
			f.MaxItems = 3
		}
		s.Fields = append(s.Fields, f)
	}
	audioHelp := "generate audio with the video"
	s.Fields = append(s.Fields,
		promptField(5000, true),
		boolField("audio", r.audio, audioHelp))
	if !r.noBGM {
		help := "add background music from a preset library"
		if isQ3Family(m) {
			help += " (no effect for the svcq3 family)"
		} else if m == "svcq2" {
			help += " (no effect when duration is 9 or 10)"
		}
		s.Fields = append(s.Fields, boolField("bgm", false, help))
	}
	s.Fields = append(s.Fields,
		durationField(r.dur, r.dMin, r.dMax),
		Field{Name: "aspect_ratio", Kind: KindEnum, Default: "16:9", Options: r.ratios, AnyRatio: r.anyRatio, Help: "frame shape"},
		enumField("resolution", r.res, r.resOpts, "output resolution"))
	if m == "svcq1" {
		s.Fields = append(s.Fields, enumField("movement_amplitude", "auto", amplitudes, "camera motion amplitude"))
	}
	s.Fields = append(s.Fields, sharedVideoFields(r.offPeak, 3, wmHelp)...)
	s.rules = []rule{imagesOrSubjects, subjectRules, subjectReferences, proImagesWithVideos, videoLengths, offPeakAudio}
}

// POST /ent/v2/img2video.
func buildImg2Video(s *Spec) {
	m := s.Model
	q1 := isQ1Family(m)
	img := imagesField(1, 1, "the first frame")
	s.Fields = []Field{modelField(operationModels[s.Operation]), img}
	if q1 {
		s.Fields = append(s.Fields, Field{Name: "prompt", Kind: KindText, MaxChars: 2000, Help: "what happens (ignored when is_rec is true)"})
	} else {
		s.Fields = append(s.Fields, promptField(5000, false))
	}
	s.Fields = append(s.Fields, boolField("audio", !q1, "generate audio with the video"))
	if q1 {
		s.Fields = append(s.Fields, Field{Name: "voice_id", Kind: KindVoiceID, Help: "voice when audio is true; empty = chosen automatically"})
	}
	s.Fields = append(s.Fields, boolField("is_rec", false, "let the service write the prompt (+10 credits)"))
	if q1 {
		s.Fields = append(s.Fields, durationField(5, 5, 5), enumField("resolution", "1080p", []string{"1080p"}, "output resolution"),
			enumField("movement_amplitude", "auto", amplitudes, "camera motion amplitude"))
	} else {
		opts := res3
		if m == "svcq3-pro-fast" {
			opts = res2
		}
		s.Fields = append(s.Fields, durationField(5, 1, 16), enumField("resolution", "720p", opts, "output resolution"))
	}
	s.Fields = append(s.Fields, sharedVideoFields(true, 3, wmHelp)...)
	s.rules = []rule{offPeakAudio}
}

// POST /ent/v2/text2video. For svcq1 the spec does not show duration and
// resolution defaults or options: those fields are checked only for shape.
func buildText2Video(s *Spec) {
	m := s.Model
	s.Fields = []Field{modelField(operationModels[s.Operation]), promptField(5000, true)}
	if m == "svcq1" {
		s.Fields = append(s.Fields, durationField(0, 0, 0),
			Field{Name: "aspect_ratio", Kind: KindEnum, Default: "16:9", Options: []string{"16:9", "9:16", "3:4", "4:3", "1:1"}, Help: "frame shape"},
			enumField("resolution", "", resAll, "output resolution (service default)"),
			boolField("audio", true, "audio with dialogue and effects; false = silent"),
			enumField("movement_amplitude", "auto", amplitudes, "camera motion amplitude"))
		s.Fields = append(s.Fields, sharedVideoFields(true, 1, wmHelpQ1Text)...)
	} else {
		s.Fields = append(s.Fields, durationField(5, 1, 16),
			Field{Name: "aspect_ratio", Kind: KindEnum, Default: "16:9", Options: []string{"16:9", "1:1", "9:16", "4:3", "3:4"}, Help: "frame shape"},
			enumField("resolution", "720p", res3, "output resolution"),
			boolField("audio", true, "audio with dialogue and effects; false = silent"))
		s.Fields = append(s.Fields, sharedVideoFields(true, 3, wmHelp)...)
	}
	s.rules = []rule{offPeakAudio}
}

// POST /ent/v2/start-end2video. Duration and resolution of the svcq1 and
// svcq2 models are not shown: checked only for shape.
func buildStartEnd2Video(s *Spec) {
	m := s.Model
	q3 := isQ3Family(m)
	frames := imagesField(2, 2, "first frame, then last frame")
	frames.ItemNames = []string{"first frame", "last frame"}
	s.Fields = []Field{
		modelField(operationModels[s.Operation]),
		frames,
		promptField(5000, false),
	}
	if q3 {
		opts := res3
		if m == "svcq3-pro-fast" {
			opts = res2
		}
		s.Fields = append(s.Fields, durationField(5, 1, 16), enumField("resolution", "720p", opts, "output resolution"),
			boolField("audio", true, "generate audio with the video"),
			boolField("bgm", false, "background music (no effect for the svcq3 family)"),
			enumField("movement_amplitude", "auto", amplitudes, "camera motion amplitude (no effect for svcq3 models)"))
	} else {
		help := "camera motion amplitude"
		if isQ2Family(m) {
			help += " (no effect for svcq2 models)"
		}
		s.Fields = append(s.Fields, durationField(0, 0, 0), enumField("resolution", "", resAll, "output resolution (service default)"),
			boolField("audio", nil, "generate audio with the video (service default)"),
			boolField("bgm", false, "add background music"),
			enumField("movement_amplitude", "auto", amplitudes, help))
	}
	s.Fields = append(s.Fields, sharedVideoFields(true, 3, wmHelp)...)
	s.rules = []rule{frameResolutionRatio, offPeakAudio}
}

// POST /ent/v2/reference2image.
func buildReference2Image(s *Spec) {
	if s.Model == "svcq1" {
		s.Fields = []Field{
			modelField(operationModels[s.Operation]),
			imagesField(1, 7, "reference images"),
			promptField(2000, true),
			seedField(),
			enumField("aspect_ratio", "16:9", []string{"16:9", "9:16", "1:1", "3:4", "4:3"}, "frame shape"),
			enumField("resolution", "1080p", []string{"1080p"}, "output resolution"),
		}
	} else {
		s.Fields = []Field{
			modelField(operationModels[s.Operation]),
			imagesField(0, 7, "reference images or the image to edit; none = from text"),
			promptField(2000, true),
			seedField(),
			enumField("aspect_ratio", "16:9", []string{"16:9", "9:16", "1:1", "3:4", "4:3", "21:9", "2:3", "3:2", "auto"}, "frame shape; auto = as the first image"),
			enumField("resolution", "1080p", []string{"1080p", "2K", "4K"}, "output resolution"),
		}
	}
	s.Fields = append(s.Fields, payloadField(), callbackField())
	s.rules = []rule{autoRatioNeedsImage}
}

// POST /ent/v2/audio-clone.
func buildAudioClone(s *Spec) {
	s.Fields = []Field{
		{Name: "audio_url", Kind: KindURL, Media: MediaAudio, Required: true, MinSeconds: 10, MaxSeconds: 300, Help: "public URL of the source audio: mp3, m4a or wav, 10 s to 5 min"},
		{Name: "voice_id", Kind: KindVoiceID, Required: true, NewVoice: true, Help: "your new voice id: 8-256 letters, digits, - or _, starting with a letter"},
		{Name: "prompt_audio_url", Kind: KindURL, Media: MediaAudio, Help: "sample clip under 8 s improving similarity"},
		{Name: "prompt_text", Kind: KindText, Help: "text of the sample clip, ending with punctuation"},
		{Name: "text", Kind: KindText, MaxChars: 1000, Help: "preview text (charged as speech synthesis)"},
		payloadField(),
	}
	s.rules = []rule{promptTextWithSample}
}

// POST /ent/v2/audio-tts (emotions from the service notes).
func buildAudioTTS(s *Spec) {
	s.Fields = []Field{
		{Name: "text", Kind: KindText, Required: true, MaxChars: 9999, Pauses: PausesTTS, Help: "text to speak; <#1.5#> pauses 1.5 s; a newline starts a paragraph"},
		{Name: "voice_setting_voice_id", Kind: KindVoiceID, Required: true, Help: "voice to speak with"},
		{Name: "voice_setting_speed", Kind: KindNumber, Default: 1.0, Range: rng(0.5, 2), Help: "0.5 slowest, 2 fastest"},
		{Name: "voice_setting_volume", Kind: KindInt, Default: 0, Range: rng(0, 10), Help: "0 normal; higher is louder"},
		{Name: "voice_setting_pitch", Kind: KindInt, Default: 0, Range: rng(-12, 12), Help: "semitones from the original voice"},
		enumField("voice_setting_emotion", "", emotions, "emotion of the speech"),
		{Name: "pronunciation_dict_tone", Kind: KindJSONArray, Help: "custom pronunciations for polyphonic characters"},
		payloadField(),
	}
}

// POST /ent/v2/timing2audio.
func buildTiming2Audio(s *Spec) {
	s.Fields = []Field{
		modelField(operationModels[s.Operation]),
		{Name: "duration", Kind: KindNumber, Default: 10.0, Range: rng(2, 10), Unit: "seconds", Help: "length of the audio"},
		{Name: "timing_prompts", Kind: KindTimingPrompts, Required: true, MinItems: 1, Help: "sound events: from, to (seconds), prompt; may overlap"},
		seedField(),
		callbackField(),
	}
	s.rules = []rule{timingWithinDuration}
}

// POST /ent/v2/lip-sync. Ranges of speed and volume are not shown.
func buildLipSync(s *Spec) {
	s.Fields = []Field{
		{Name: "video_url", Kind: KindMedia, Media: MediaVideo, Required: true, MaxDecoded: maxVideoBytes, Help: "source video"},
		{Name: "audio_url", Kind: KindMedia, Media: MediaAudio, MaxDecoded: maxAudioBytes, Help: "audio to sync"},
		{Name: "text", Kind: KindText, Pauses: PausesLipSync, Help: "text to speak; #1.5# pauses 1.5 s"},
		{Name: "speed", Kind: KindNumber, Default: 1.0, Range: &Range{Min: 0.01}, Help: "speech speed for text"},
		{Name: "voice_id", Kind: KindVoiceID, Help: "voice for text"},
		{Name: "ref_photo_url", Kind: KindMedia, Media: MediaImage, Help: "reference photo"},
		{Name: "volume", Kind: KindInt, Range: &Range{Min: 0}, Help: "volume"},
		payloadField(),
		callbackField(),
	}
}

// storyHelp describes each template story. The spec names the templates
// and no more; these are clapper's words from their names and the sandbox's
// renderings, for a user choosing one: the service's own result decides.
var storyHelp = map[string]string{
	"love_story":    "a short romance told with your images",
	"workday_feels": "a working day, from the morning rush to clocking off",
	"monkey_king":   "your subject as the Monkey King of Journey to the West",
	"pigsy":         "your subject as Pigsy of Journey to the West",
	"monk_tang":     "your subject as the monk Tang Sanzang of Journey to the West",
	"one_shot":      "one continuous shot through your images; the video takes the first image's ratio",
}

// POST /ent/v2/template-story.
func buildTemplateStory(s *Spec) {
	s.Fields = []Field{
		{Name: "story", Kind: KindEnum, Required: true, Options: stories, OptionHelp: storyHelp, Help: "template"},
		imagesField(1, 0, "images for the template; one_shot takes the first image's ratio"),
		payloadField(),
		callbackField(),
	}
}

// POST /ent/v2/trending-replicate.
func buildTrendingReplicate(s *Spec) {
	s.Fields = []Field{
		{Name: "video_url", Kind: KindMedia, Media: MediaVideo, Required: true, MaxDecoded: maxVideoBytes, Help: "video to replicate"},
		imagesField(0, 0, "product or model images"),
		promptField(2000, false),
		enumField("quality", "standard", []string{"fast", "standard", "plus", "medium", "high"}, "quality, rising in that order"),
		enumField("aspect_ratio", "", []string{"16:9", "1:1", "9:16", "4:3", "3:4"}, "frame shape"),
		enumField("resolution", "1080p", res3, "output resolution"),
		boolField("remove_audio", false, "remove the original sound"),
		callbackField(),
	}
}

func mvAudioField(help string) Field {
	return Field{Name: "audio_url", Kind: KindMedia, Media: MediaAudio, Required: true, MaxDecoded: maxAudioBytes, MinSeconds: 10, MaxSeconds: 300, Help: help}
}

func subtitleFields(colorDefault any) []Field {
	return []Field{
		boolField("add_subtitle", false, "burn in subtitles"),
		{Name: "subtitle_color", Kind: KindColor, Default: colorDefault, Help: "HEX colour such as #FFFFFF"},
	}
}

// POST /ent/v2/one-click/mv.
func buildMV(s *Spec) {
	s.Fields = []Field{
		imagesField(1, 7, "model or style images"),
		mvAudioField("the song: mp3, wav, aac or m4a, 10-300 s"),
		boolField("lip_sync", false, "lip-sync real singers (+4 credits per second; not at 540p)"),
		{Name: "lip_ref_url", Kind: KindMedia, Media: MediaImage, ImageFormats: lipRefImages, MaxDecoded: maxLipRefBytes, DecodedAtMost: true, Help: "frontal close-up of the singer's face"},
		{Name: "style", Kind: KindText, Help: "free style text"},
		enumField("quality", "standard", []string{"standard", "high"}, "standard = reference-video pipeline, high = mixed pipeline"),
		promptField(3000, false),
		enumField("aspect_ratio", "16:9", ratios5, "frame shape"),
		enumField("resolution", "720p", res3, "output resolution"),
	}
	s.Fields = append(s.Fields, subtitleFields("#FFFFFF")...)
	s.Fields = append(s.Fields,
		enumField("language", "", mvLanguages, "lyrics language; unset = automatic"),
		Field{Name: "srt_url", Kind: KindURL, Help: "subtitle file URL"},
		callbackField())
	s.rules = []rule{lipSyncResolution, lipRefShape}
}

// POST /ent/v2/one-click/premium_mv.
func buildPremiumMV(s *Spec) {
	s.Fields = []Field{
		{Name: "premium_mv_mode", Kind: KindEnum, Required: true, Options: pmvModes, Help: "sing, sing_perform (lip-sync), perform, dance"},
		{Name: "lip_ref_urls", Kind: KindMediaList, Media: MediaImage, ImageFormats: lipRefImages, MaxItems: 2, Help: "singers' faces in singing order (sing modes)"},
		imagesField(0, 6, "up to 6 images (required for perform and dance)"),
		mvAudioField("the song with lyrics, no instrumentals: mp3, wav, aac or m4a, 10-300 s"),
		enumField("language", "", pmvLanguages, "lyrics language; unset = automatic"),
		{Name: "style", Kind: KindText, Help: "style text"},
		promptField(3000, false),
		enumField("aspect_ratio", "16:9", ratios5, "frame shape"),
		enumField("resolution", "720p", res2, "output resolution"),
	}
	s.Fields = append(s.Fields, subtitleFields(nil)...)
	s.Fields = append(s.Fields, callbackField())
	s.rules = []rule{premiumModeInputs}
}

// POST /ent/v2/one-click/general_one_click (Multi-scene one-click operations).
func buildGeneralOneClick(s *Spec) {
	s.Fields = []Field{
		imagesField(1, 7, "images for the scenes"),
		promptField(3000, false),
		enumField("aspect_ratio", "16:9", ratios5, "frame shape"),
		{Name: "duration", Kind: KindInt, Required: true, Range: rng(1, 180), Unit: "seconds", Help: "total length"},
		callbackField(),
		payloadField(),
	}
}

// EditSpec and ComposeSpec are the bodies of the multi-scene edit and
// compose calls.
func EditSpec() *Spec {
	return &Spec{Operation: "general_one_click/edit", Fields: []Field{
		{Name: "job_id", Kind: KindText, Required: true, Help: "the scene job to edit"},
		promptField(3000, true),
		callbackField(),
	}}
}

func ComposeSpec() *Spec {
	return &Spec{Operation: "general_one_click/compose", Fields: []Field{
		{Name: "job_ids", Kind: KindStringList, Required: true, MinItems: 1, Help: "scene jobs to compose"},
		callbackField(),
	}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SubjectSpec is the body of stored-subject creation (POST /ent/v2/subjects)
// or, with update, of PUT /ent/v2/subjects/{id} (service notes, Stored
// subjects): images replace the old ones on update.
func SubjectSpec(update bool) *Spec {
	imgs := Field{Name: "images", Kind: KindMediaList, Media: MediaImage, MinItems: 1, MaxItems: 3, Help: "1-3 images of the subject: png, jpeg, jpg or webp"}
	if update {
		imgs.Help = "at most 3 images, replacing the old ones"
	}
	return &Spec{Operation: "subjects", Fields: []Field{
		{Name: "name", Kind: KindText, Required: !update, MaxChars: 64, Help: "the subject's name"},
		imgs,
		{Name: "videos", Kind: KindMediaList, Media: MediaVideo, MaxItems: 1, MaxDecoded: maxVideoBytes, MaxSeconds: 5, Help: "one 5 s video (only svcq2-pro uses video subjects)"},
		{Name: "voice_id", Kind: KindVoiceID, Help: "the subject's voice: a system or cloned voice"},
		{Name: "style", Kind: KindText, MaxChars: 100, Help: "style"},
		{Name: "description", Kind: KindText, MaxChars: 2000, Help: "description"},
	}}
}
