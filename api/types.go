package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Requests. Optional fields are pointers or omitempty so that an unset field
// is not sent: a default is the service's to apply.

// VideoOptions are the shared optional fields of the video operations.
type VideoOptions struct {
	Seed        *int64 `json:"seed,omitempty"`
	Payload     string `json:"payload,omitempty"`
	OffPeak     *bool  `json:"off_peak,omitempty"`
	Watermark   *bool  `json:"watermark,omitempty"`
	WMPosition  *int   `json:"wm_position,omitempty"`
	WMURL       string `json:"wm_url,omitempty"`
	MetaData    string `json:"meta_data,omitempty"`
	CallbackURL string `json:"callback_url,omitempty"`
}

// Subject is a named reference usable in a prompt as [@name].
type Subject struct {
	Name     string   `json:"name"`
	Images   []string `json:"images,omitempty"`
	Videos   []string `json:"videos,omitempty"`
	VoiceID  string   `json:"voice_id,omitempty"`
	ServerID string   `json:"server_id,omitempty"`
}

// TimingPrompt is one sound event on a timeline, in seconds.
type TimingPrompt struct {
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	Prompt string  `json:"prompt"`
}

type Reference2VideoRequest struct {
	Model             string    `json:"model"`
	Images            []string  `json:"images,omitempty"`
	Videos            []string  `json:"videos,omitempty"`
	Subjects          []Subject `json:"subjects,omitempty"`
	AutoSubjects      *bool     `json:"auto_subjects,omitempty"`
	Sounds            []string  `json:"sounds,omitempty"`
	Prompt            string    `json:"prompt"`
	Audio             *bool     `json:"audio,omitempty"`
	BGM               *bool     `json:"bgm,omitempty"`
	Duration          *int      `json:"duration,omitempty"`
	AspectRatio       string    `json:"aspect_ratio,omitempty"`
	Resolution        string    `json:"resolution,omitempty"`
	MovementAmplitude string    `json:"movement_amplitude,omitempty"`
	VideoOptions
}

type Img2VideoRequest struct {
	Model             string   `json:"model"`
	Images            []string `json:"images"`
	Prompt            string   `json:"prompt,omitempty"`
	Audio             *bool    `json:"audio,omitempty"`
	VoiceID           string   `json:"voice_id,omitempty"`
	IsRec             *bool    `json:"is_rec,omitempty"`
	Duration          *int     `json:"duration,omitempty"`
	Resolution        string   `json:"resolution,omitempty"`
	MovementAmplitude string   `json:"movement_amplitude,omitempty"`
	VideoOptions
}

type Text2VideoRequest struct {
	Model             string `json:"model"`
	Prompt            string `json:"prompt"`
	Duration          *int   `json:"duration,omitempty"`
	AspectRatio       string `json:"aspect_ratio,omitempty"`
	Resolution        string `json:"resolution,omitempty"`
	Audio             *bool  `json:"audio,omitempty"`
	MovementAmplitude string `json:"movement_amplitude,omitempty"`
	VideoOptions
}

type StartEnd2VideoRequest struct {
	Model             string   `json:"model"`
	Images            []string `json:"images"`
	Prompt            string   `json:"prompt,omitempty"`
	Duration          *int     `json:"duration,omitempty"`
	Resolution        string   `json:"resolution,omitempty"`
	Audio             *bool    `json:"audio,omitempty"`
	BGM               *bool    `json:"bgm,omitempty"`
	MovementAmplitude string   `json:"movement_amplitude,omitempty"`
	VideoOptions
}

type Reference2ImageRequest struct {
	Model       string   `json:"model"`
	Images      []string `json:"images,omitempty"`
	Prompt      string   `json:"prompt"`
	Seed        *int64   `json:"seed,omitempty"`
	AspectRatio string   `json:"aspect_ratio,omitempty"`
	Resolution  string   `json:"resolution,omitempty"`
	Payload     string   `json:"payload,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
}

type AudioCloneRequest struct {
	AudioURL       string `json:"audio_url"`
	VoiceID        string `json:"voice_id"`
	PromptAudioURL string `json:"prompt_audio_url,omitempty"`
	PromptText     string `json:"prompt_text,omitempty"`
	Text           string `json:"text,omitempty"`
	Payload        string `json:"payload,omitempty"`
}

type AudioTTSRequest struct {
	Text                  string            `json:"text"`
	VoiceID               string            `json:"voice_setting_voice_id"`
	Speed                 *float64          `json:"voice_setting_speed,omitempty"`
	Volume                *int              `json:"voice_setting_volume,omitempty"`
	Pitch                 *int              `json:"voice_setting_pitch,omitempty"`
	Emotion               string            `json:"voice_setting_emotion,omitempty"`
	PronunciationDictTone []json.RawMessage `json:"pronunciation_dict_tone,omitempty"`
	Payload               string            `json:"payload,omitempty"`
}

type Timing2AudioRequest struct {
	Model         string         `json:"model"`
	Duration      *float64       `json:"duration,omitempty"`
	TimingPrompts []TimingPrompt `json:"timing_prompts"`
	Seed          *int64         `json:"seed,omitempty"`
	CallbackURL   string         `json:"callback_url,omitempty"`
}

type LipSyncRequest struct {
	VideoURL    string   `json:"video_url"`
	AudioURL    string   `json:"audio_url,omitempty"`
	Text        string   `json:"text,omitempty"`
	Speed       *float64 `json:"speed,omitempty"`
	VoiceID     string   `json:"voice_id,omitempty"`
	RefPhotoURL string   `json:"ref_photo_url,omitempty"`
	Volume      *int     `json:"volume,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
}

type TemplateStoryRequest struct {
	Story       string   `json:"story"`
	Images      []string `json:"images"`
	Payload     string   `json:"payload,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
}

type TrendingReplicateRequest struct {
	VideoURL    string   `json:"video_url"`
	Images      []string `json:"images,omitempty"`
	Prompt      string   `json:"prompt,omitempty"`
	Quality     string   `json:"quality,omitempty"`
	AspectRatio string   `json:"aspect_ratio,omitempty"`
	Resolution  string   `json:"resolution,omitempty"`
	RemoveAudio *bool    `json:"remove_audio,omitempty"`
	CallbackURL string   `json:"callback_url,omitempty"`
}

type MVRequest struct {
	Images        []string `json:"images"`
	AudioURL      string   `json:"audio_url"`
	LipSync       *bool    `json:"lip_sync,omitempty"`
	LipRefURL     string   `json:"lip_ref_url,omitempty"`
	Style         string   `json:"style,omitempty"`
	Quality       string   `json:"quality,omitempty"`
	Prompt        string   `json:"prompt,omitempty"`
	AspectRatio   string   `json:"aspect_ratio,omitempty"`
	Resolution    string   `json:"resolution,omitempty"`
	AddSubtitle   *bool    `json:"add_subtitle,omitempty"`
	SubtitleColor string   `json:"subtitle_color,omitempty"`
	Language      string   `json:"language,omitempty"`
	SRTURL        string   `json:"srt_url,omitempty"`
	CallbackURL   string   `json:"callback_url,omitempty"`
}

type PremiumMVRequest struct {
	Mode          string   `json:"premium_mv_mode"`
	LipRefURLs    []string `json:"lip_ref_urls,omitempty"`
	Images        []string `json:"images,omitempty"`
	AudioURL      string   `json:"audio_url"`
	Language      string   `json:"language,omitempty"`
	Style         string   `json:"style,omitempty"`
	Prompt        string   `json:"prompt,omitempty"`
	AspectRatio   string   `json:"aspect_ratio,omitempty"`
	Resolution    string   `json:"resolution,omitempty"`
	AddSubtitle   *bool    `json:"add_subtitle,omitempty"`
	SubtitleColor string   `json:"subtitle_color,omitempty"`
	CallbackURL   string   `json:"callback_url,omitempty"`
}

type GeneralOneClickRequest struct {
	Images      []string `json:"images"`
	Prompt      string   `json:"prompt,omitempty"`
	AspectRatio string   `json:"aspect_ratio,omitempty"`
	Duration    int      `json:"duration"`
	CallbackURL string   `json:"callback_url,omitempty"`
	Payload     string   `json:"payload,omitempty"`
}

// EditSceneRequest replaces one scene of a multi-scene job with a new prompt.
type EditSceneRequest struct {
	JobID       string `json:"job_id"`
	Prompt      string `json:"prompt"`
	CallbackURL string `json:"callback_url,omitempty"`
}

// ComposeRequest recomposes a multi-scene job from the chosen scene jobs.
type ComposeRequest struct {
	JobIDs      []string `json:"job_ids"`
	CallbackURL string   `json:"callback_url,omitempty"`
}

// Responses. Decoding is tolerant: unknown fields are ignored, list fields
// accept a single string, and counts accept 12, 12.0 or "12".
//
// Decoding is also where the service's text enters clapper, so each answer
// type cleans every string it holds (CleanText) as it decodes: an err_code,
// a message or a prompt echoed back can carry no escape sequence or control
// byte into any sentence built from it later. Raw keeps the body as
// received, for history and --json (which writes it through EscapeJSON).

// decodeClean decodes b into v (a pointer to a method-less copy of an
// answer type, so this is not called again) and cleans its strings.
func decodeClean(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	cleanStrings(reflect.ValueOf(v).Elem())
	return nil
}

// Task is a creation echo. One-click creations answer only {id}, kept in ID.
type Task struct {
	TaskID            string         `json:"task_id,omitempty"`
	ID                string         `json:"id,omitempty"`
	State             string         `json:"state,omitempty"`
	Model             string         `json:"model,omitempty"`
	Prompt            string         `json:"prompt,omitempty"`
	Images            StringList     `json:"images,omitempty"`
	Sounds            StringList     `json:"sounds,omitempty"`
	Duration          Number         `json:"duration,omitempty"`
	Seed              Int            `json:"seed,omitempty"`
	AspectRatio       string         `json:"aspect_ratio,omitempty"`
	Resolution        string         `json:"resolution,omitempty"`
	BGM               *bool          `json:"bgm,omitempty"`
	Audio             *bool          `json:"audio,omitempty"`
	MovementAmplitude string         `json:"movement_amplitude,omitempty"`
	Payload           string         `json:"payload,omitempty"`
	OffPeak           *bool          `json:"off_peak,omitempty"`
	Credits           Int            `json:"credits,omitempty"`
	Watermark         *bool          `json:"watermark,omitempty"`
	CreatedAt         string         `json:"created_at,omitempty"`
	Story             string         `json:"story,omitempty"`
	RemoveAudio       *bool          `json:"remove_audio,omitempty"`
	TimingPrompts     []TimingPrompt `json:"timing_prompts,omitempty"`
	VoiceID           string         `json:"voice_id,omitempty"`
	DemoAudio         string         `json:"demo_audio,omitempty"`
	FileURL           string         `json:"file_url,omitempty"`

	// Raw is the body as received, kept for history.
	Raw json.RawMessage `json:"-"`
}

func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	return decodeClean(b, (*plain)(t))
}

// Identifier is the task id, whichever key the operation answered it under.
func (t *Task) Identifier() string {
	if t.TaskID != "" {
		return t.TaskID
	}
	return t.ID
}

// TaskResult is the answer of GET /ent/v2/tasks/{id}/creations and the body
// of a callback.
type TaskResult struct {
	ID            string         `json:"id"`
	State         string         `json:"state"`
	ErrCode       string         `json:"err_code"`
	Credits       Int            `json:"credits"`
	Payload       string         `json:"payload,omitempty"`
	BGM           *bool          `json:"bgm,omitempty"`
	OffPeak       *bool          `json:"off_peak,omitempty"`
	Creations     []Creation     `json:"creations"`
	Progress      *Int           `json:"progress,omitempty"`
	Duration      Number         `json:"duration,omitempty"`
	TimingPrompts []TimingPrompt `json:"timing_prompts,omitempty"`
	Seed          Int            `json:"seed,omitempty"`
	CreatedAt     string         `json:"created_at,omitempty"`
	CallbackURL   string         `json:"callback_url,omitempty"`

	// CreditsSent is false when the answer had no credits (or null): it
	// then says nothing about them, and a recorded value must stand.
	CreditsSent bool `json:"-"`

	Raw json.RawMessage `json:"-"`
}

func (r *TaskResult) UnmarshalJSON(b []byte) error {
	type plain TaskResult
	// The outer credits shadows the embedded one, so absence is seen.
	aux := struct {
		*plain
		Credits *Int `json:"credits"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	cleanStrings(reflect.ValueOf(r).Elem())
	r.ErrCode = CapText(r.ErrCode, maxWord)
	r.Credits, r.CreditsSent = 0, aux.Credits != nil
	if aux.Credits != nil {
		r.Credits = *aux.Credits
	}
	return nil
}

// Creation is one result item. URLs are signed and expire.
type Creation struct {
	ID             string `json:"id"`
	URL            string `json:"url"`
	CoverURL       string `json:"cover_url,omitempty"`
	WatermarkedURL string `json:"watermarked_url,omitempty"`
}

// OneClickJob is the record of a multi-scene job.
type OneClickJob struct {
	ID         string      `json:"id"`
	Type       string      `json:"type"`
	CreatorID  string      `json:"creator_id,omitempty"`
	State      string      `json:"state"`
	Input      Text        `json:"input,omitempty"`
	JobRecords []JobRecord `json:"job_records"`
	CreatedAt  string      `json:"created_at,omitempty"`
	UpdatedAt  string      `json:"updated_at,omitempty"`
	ErrCode    string      `json:"err_code"`
	ErrMsg     string      `json:"err_msg"`
	SignedURL  string      `json:"signed_url"`

	Raw json.RawMessage `json:"-"`
}

func (j *OneClickJob) UnmarshalJSON(b []byte) error {
	type plain OneClickJob
	if err := decodeClean(b, (*plain)(j)); err != nil {
		return err
	}
	j.ErrCode, j.ErrMsg = CapText(j.ErrCode, maxWord), CapText(j.ErrMsg, MaxMessage)
	return nil
}

// Job record types.
const (
	RecordGenerateVideo = "generate_video"
	RecordCompose       = "compose"
)

// JobRecord is one scene (generate_video) or the composition (compose) with
// its edit history, oldest first.
type JobRecord struct {
	Type  string `json:"type"`
	Index Int    `json:"index"`
	Jobs  []Job  `json:"jobs"`
}

// Job is one version of a scene or of the composition.
type Job struct {
	ID                   string      `json:"id"`
	Type                 string      `json:"type"`
	Input                Text        `json:"input,omitempty"`
	Output               Text        `json:"output,omitempty"`
	State                string      `json:"state"`
	CreatedAt            string      `json:"created_at,omitempty"`
	UpdatedAt            string      `json:"updated_at,omitempty"`
	ErrCode              string      `json:"err_code"`
	ErrMsg               string      `json:"err_msg"`
	SignedURL            string      `json:"signed_url"`
	Index                Int         `json:"index"`
	MVGenerateVideoInput *SceneInput `json:"mv_generate_video_input,omitempty"`
}

// SceneInput is what one scene was generated from.
type SceneInput struct {
	Duration     Int        `json:"duration"`
	Prompt       string     `json:"prompt"`
	LyricText    string     `json:"lyric_text"`
	SignedImages StringList `json:"signed_images"`
}

// IDResponse is the {id} answer of one-click creations, edit and compose.
type IDResponse struct {
	ID string `json:"id"`
}

func (r *IDResponse) UnmarshalJSON(b []byte) error {
	type plain IDResponse
	return decodeClean(b, (*plain)(r))
}

// StringList decodes from a JSON array of strings, a single string or null.
type StringList []string

func (l *StringList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*l = nil
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*l = nil
		} else {
			*l = StringList{s}
		}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*l = ss
	return nil
}

// Int decodes a whole number given as 12, 12.0, "12" or null.
type Int int64

func (n *Int) UnmarshalJSON(b []byte) error {
	f, ok, err := decodeNumber(b)
	if err != nil || !ok {
		*n = 0
		return err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("want a whole number, got %s", CleanText(string(b)))
	}
	*n = Int(f)
	return nil
}

// Number decodes a number given as 5, 5.5, "5.5" or null.
type Number float64

func (n *Number) UnmarshalJSON(b []byte) error {
	f, _, err := decodeNumber(b)
	*n = Number(f)
	return err
}

func decodeNumber(b []byte) (float64, bool, error) {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return 0, false, nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, false, err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return 0, false, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Errorf("want a number, got %s", CleanText(string(b)))
	}
	return f, true, nil
}

// Text decodes a field the spec calls a string but which may arrive as any
// JSON value (job input and output); non-strings keep their JSON text.
type Text string

func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*t = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
		return nil
	}
	*t = Text(b)
	return nil
}
