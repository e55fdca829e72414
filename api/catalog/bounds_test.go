package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
)

// Bounds and wordings of single-field rules, from the spec's words: each
// case sits at a bound or on the side of a rule a one-character slip in
// the code would move.

func TestFieldBoundsAsWritten(t *testing.T) {
	const lip = `{"video_url":"https://e.com/v.mp4"}`
	const t2v = `{"model":"svcq3-pro","prompt":"p"}`
	const r2v = `{"model":"svcq2","prompt":"p","images":["https://e.com/1"]}`
	long := strings.Repeat("v", 257)
	runEdgeCases(t, []edgeCase{
		// Service notes: lip-sync text "4 to 2000 characters".
		{name: "lip-sync text of 4 characters", op: "lip-sync", req: lip, set: []any{"text", "abcd"}},
		{name: "lip-sync text of 3 characters", op: "lip-sync", req: lip, set: []any{"text", "abc"},
			want: "text: at least 4 characters for lip-sync, got 3"},
		// img2video: "svcq1 and svcq1-classic: at most 2000 characters";
		// the svcq3 family takes video prompts of 5000.
		{name: "svcq1 image prompt of 2000", op: "img2video", req: `{"model":"svcq1","images":["https://e.com/1"]}`, set: []any{"prompt", strings.Repeat("p", 2000)}},
		{name: "svcq1 image prompt of 2001", op: "img2video", req: `{"model":"svcq1","images":["https://e.com/1"]}`, set: []any{"prompt", strings.Repeat("p", 2001)},
			want: "prompt: at most 2000 characters for svcq1, got 2001"},
		{name: "svcq3-pro image prompt of 2001", op: "img2video", req: `{"model":"svcq3-pro","images":["https://e.com/1"]}`, set: []any{"prompt", strings.Repeat("p", 2001)}},
		{name: "svcq3-pro image prompt of 5001", op: "img2video", req: `{"model":"svcq3-pro","images":["https://e.com/1"]}`, set: []any{"prompt", strings.Repeat("p", 5001)},
			want: "prompt: at most 5000 characters for svcq3-pro, got 5001"},

		// "svcq1 family: 1080p only" is said as the only choice.
		{name: "a choice of one", op: "img2video", req: `{"model":"svcq1","images":["https://e.com/1"]}`, set: []any{"resolution", "720p"},
			want: `resolution: svcq1 accepts only 1080p, got "720p"`},
		{name: "a choice of several", op: "img2video", req: `{"model":"svcq3-turbo","images":["https://e.com/1"]}`, set: []any{"resolution", "4K"},
			want: `resolution: svcq3-turbo accepts 540p, 720p, 1080p, got "4K"`, not: "only"},

		// "http(s) URL": plain http is one.
		{name: "an http callback", op: "text2video", req: t2v, set: []any{"callback_url", "http://e.com/hook"}},
		{name: "an ftp callback", op: "text2video", req: t2v, set: []any{"callback_url", "ftp://e.com/hook"},
			want: `callback_url: must be an http(s) URL, got "ftp://e.com/hook"`},
		{name: "an http image", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{"http://e.com/a.png"}}},
		{name: "an ftp image", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{"ftp://e.com/a.png"}},
			want: "images[0]: must be an http(s) URL, an ssupload: URI or a data:image/...;base64, URI"},
		{name: "an ftp video", op: "trending-replicate", req: `{}`, set: []any{"video_url", "ftp://e.com/v.mp4"},
			want: "video_url: must be an http(s) URL or a data:video/...;base64, URI", not: "ssupload"},
		{name: "an upload URI without its id", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{"ssupload:"}},
			want: "images[0]: an upload URI reads ssupload:?id=<id>"},

		// A subject's voice_id is a voice reference (at most 256
		// characters); its server_id is no voice.
		{name: "subject voice of 257 characters", op: "reference2video", req: `{"model":"svcq2","prompt":"p"}`,
			set:  []any{"subjects", []any{map[string]any{"name": "cat", "images": []any{"https://e.com/c.png"}, "voice_id": long}}},
			want: "subjects[0].voice_id: "},
		{name: "subject server id of 257 characters", op: "reference2video", req: `{"model":"svcq2","prompt":"p"}`,
			set: []any{"subjects", []any{map[string]any{"name": "cat", "images": []any{"https://e.com/c.png"}, "server_id": long}}}},

		// An empty list is unset, so a model that does not take the
		// field does not refuse it.
		{name: "an empty list of videos for svcq2", op: "reference2video", req: r2v, set: []any{"videos", []any{}}},
	})
}

// The reason of a count error: a required list left empty lacks the field;
// a list of the wrong length is out of range.
func TestCountReasons(t *testing.T) {
	errs := Validate(api.OpStartEnd2Video, with(t, `{"model":"svcq3-pro"}`, "images", images(3)))
	if len(errs) != 1 || errs[0].Reason != api.ReasonFieldItemCountOutOfRange {
		t.Errorf("three frames: %+v; want %s", errs, api.ReasonFieldItemCountOutOfRange)
	}
	errs = Validate(api.OpStartEnd2Video, with(t, `{"model":"svcq3-pro"}`))
	if len(errs) != 1 || errs[0].Reason != api.ReasonFieldLacking {
		t.Errorf("no frames: %+v; want %s", errs, api.ReasonFieldLacking)
	}
}

// A data URI of a type the field does not take: an image's reason is the
// image format, a video's a plain invalid field.
func TestContentTypeReasons(t *testing.T) {
	for _, c := range []struct {
		op     api.Operation
		req    map[string]any
		reason string
	}{
		{api.OpImg2Video, with(t, `{"model":"svcq3-pro"}`, "images", []any{"data:image/gif;base64,R0lGODlh"}), api.ReasonImageFormatInvalid},
		{api.OpTrendingReplicate, with(t, `{}`, "video_url", "data:video/webm;base64,GkXfow=="), api.ReasonFieldInvalid},
	} {
		errs := Validate(c.op, c.req)
		if len(errs) != 1 || errs[0].Reason != c.reason || !strings.Contains(errs[0].Message, "is not accepted") {
			t.Errorf("%s: %+v; want one %s", c.op, errs, c.reason)
		}
	}
}

func TestNormalizeAtItsEdges(t *testing.T) {
	got := Normalize(api.OpText2Video, decode(t, `{"model":"svcq3-pro","prompt":[],"seed":9.007199254740991e15}`))
	if b, _ := json.Marshal(got); string(b) != `{"model":"svcq3-pro","prompt":[],"seed":9007199254740991}` {
		t.Errorf("Normalize sends %s; want an empty list kept for a text field (a forced request) and the largest seed as an integer", b)
	}
	subj := Normalize(api.OpReference2Video, decode(t, `{"model":"svcq2-pro","subjects":[{"name":"a",
		"images":["DATA:image/png;base64,AA"],"videos":["Data:video/mp4;base64,AA"],"voice_id":"DATA:x"}]}`))
	if b, _ := json.Marshal(subj["subjects"]); string(b) != `[{"images":["data:image/png;base64,AA"],"name":"a","videos":["data:video/mp4;base64,AA"],"voice_id":"DATA:x"}]` {
		t.Errorf("subjects sent as %s", b)
	}
}

// A name cut short suggests the field it begins, though another is as far;
// two swapped pairs in a four-letter name are too far for a suggestion.
func TestSuggestEdges(t *testing.T) {
	if got := Suggest(api.OpAudioTTS, "voice_setting_voice"); got != "voice_setting_voice_id" {
		t.Errorf("voice_setting_voice suggests %q", got)
	}
	if got := Suggest(api.OpText2Video, "esde"); got != "" {
		t.Errorf("esde suggests %q", got)
	}
	if got := Suggest(api.OpText2Video, "sede"); got != "seed" {
		t.Errorf("sede suggests %q", got)
	}
}
