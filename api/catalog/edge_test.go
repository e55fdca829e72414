package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"clapper/api"
)

// Issue 11, "Catalog edge cases (found by probing every bound)": each case
// quotes what the message must say, so a rule that holds but explains
// itself badly fails too.

// mp4SizedURI is an MP4 lasting secs whose video track states w x h.
func mp4SizedURI(secs float64, w, h int) string {
	box := func(typ string, payload ...[]byte) []byte {
		body := bytes.Join(payload, nil)
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(out, typ...), body...)
	}
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], 1000)
	binary.BigEndian.PutUint32(mvhd[16:], uint32(secs*1000))
	sound := make([]byte, 84) // an audio track first: no frame size
	video := make([]byte, 84)
	binary.BigEndian.PutUint32(video[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(video[80:], uint32(h)<<16)
	file := append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")),
		box("moov", box("mvhd", mvhd), box("trak", box("tkhd", sound)), box("trak", box("tkhd", video)))...)
	return "data:video/mp4;base64," + base64.StdEncoding.EncodeToString(file)
}

// paddedPNG is a 200x200 PNG followed by zeros up to exactly n bytes
// (decoders read only the header, so its size is all that changes).
func paddedPNG(t testing.TB, n int) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 200, 200))); err != nil {
		t.Fatal(err)
	}
	data := append(b.Bytes(), make([]byte, n-b.Len())...)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
}

func redeclare(uri, from, to string) string { return strings.Replace(uri, from, to, 1) }

type edgeCase struct {
	name, op, req string
	set           []any
	want          string // "" = valid; else part of the messages
	not           string // must not appear in the messages
}

func runEdgeCases(t *testing.T, cases []edgeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := with(t, c.req, c.set...)
			errs := Validate(api.Operation(c.op), m)
			switch {
			case c.want == "" && errs != nil:
				t.Fatalf("want valid, got %v\nrequest: %s", errs, short(m))
			case c.want != "" && !strings.Contains(errs.Error(), c.want):
				t.Fatalf("want %q in the messages, got %q", c.want, errs.Error())
			case c.not != "" && strings.Contains(errs.Error(), c.not):
				t.Fatalf("message %q says %q", errs.Error(), c.not)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Message, e.Field) {
					t.Errorf("message %q does not start with its field %s", e.Message, e.Field)
				}
			}
		})
	}
}

// 14. "Media content must match its declared type."
func TestMediaContentMatchesDeclaredType(t *testing.T) {
	const i2v, r2v = `{"model":"svcq3-pro"}`, `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`
	const mv = `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3"}`
	png := pngURI(t, 200, 200)
	runEdgeCases(t, []edgeCase{
		{name: "jpeg declared png", op: "img2video", req: i2v, set: []any{"images", []any{redeclare(jpegURI(t, 200, 200), "image/jpeg", "image/png")}},
			want: "images[0]: content is a jpeg image declared as image/png; declare it data:image/jpeg;base64,"},
		{name: "bmp declared png", op: "img2video", req: i2v, set: []any{"images", []any{redeclare(bmpURI(t, 200, 200), "image/bmp", "image/png")}},
			want: "content is a bmp image declared as image/png; convert it to one of image/png, image/jpeg, image/jpg, image/webp"},
		{name: "png declared jpg", op: "img2video", req: i2v, set: []any{"images", []any{redeclare(png, "image/png", "image/jpg")}},
			want: "content is a png image declared as image/jpg"},
		{name: "jpeg declared jpg", op: "img2video", req: i2v, set: []any{"images", []any{redeclare(jpegURI(t, 200, 200), "image/jpeg", "image/jpg")}}},
		{name: "bmp face for lip_ref_url", op: "mv", req: mv, set: []any{"lip_ref_url", bmpURI(t, 200, 200)}},
		{name: "bmp face declared png", op: "mv", req: mv, set: []any{"lip_ref_url", redeclare(bmpURI(t, 200, 200), "image/bmp", "image/png")},
			want: "lip_ref_url: content is a bmp image declared as image/png; declare it data:image/bmp;base64,"},

		{name: "png bytes declared video/mp4", op: "reference2video", req: r2v, set: []any{"videos", []any{redeclare(png, "image/png", "video/mp4")}},
			want: "videos[0]: content is a png image, not a video"},
		{name: "text declared video/mp4", op: "reference2video", req: r2v, set: []any{"videos", []any{"data:video/mp4;base64,aGVsbG8gd29ybGQh"}},
			want: "videos[0]: content is not the video/mp4 video it is declared as"},
		{name: "mp4 declared avi", op: "reference2video", req: r2v, set: []any{"videos", []any{redeclare(mp4URI(3), "video/mp4", "video/avi")}},
			want: "content is an MP4 or MOV video declared as video/avi"},
		{name: "mp4 declared quicktime", op: "reference2video", req: r2v, set: []any{"videos", []any{redeclare(mp4URI(3), "video/mp4", "video/quicktime")}}},
		{name: "png bytes as lip-sync video", op: "lip-sync", req: `{"text":"hi"}`, set: []any{"video_url", redeclare(png, "image/png", "video/mp4")},
			want: "video_url: content is a png image, not a video"},

		{name: "video 1920x1080", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 1920, 1080)}}},
		{name: "video 128x128", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 128, 128)}}},
		{name: "video 127x128", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 127, 128)}},
			want: "videos[0]: video is 127x128; at least 128x128 pixels"},
		{name: "video 4:1", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 512, 128)}}},
		{name: "video wider than 4:1", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 516, 128)}},
			want: "video is 516x128; its aspect ratio must lie within 1:4 to 4:1"},
		{name: "video taller than 1:4", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4SizedURI(3, 128, 516)}},
			want: "video is 128x516"},

		{name: "png bytes as audio", op: "mv", req: `{"images":["https://e.com/1"]}`, set: []any{"audio_url", redeclare(png, "image/png", "audio/wav")},
			want: "audio_url: content is a png image, not audio"},
	})
}

// 15. "Empty means unset (not sent); a wrong type is a field error."
func TestEmptyAndWrongTypedValues(t *testing.T) {
	const t2v = `{"model":"svcq3-pro","prompt":"p"}`
	runEdgeCases(t, []edgeCase{
		{name: "empty duration is unset", op: "text2video", req: t2v, set: []any{"duration", ""}},
		{name: "null seed is unset", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":null}`},
		{name: "empty list for a boolean", op: "text2video", req: t2v, set: []any{"audio", []any{}}, want: "audio: must be true or false, got an empty list"},
		{name: "empty list for a number", op: "text2video", req: t2v, set: []any{"duration", []any{}}, want: "duration: must be a whole number, got an empty list"},
		{name: "empty list for text", op: "text2video", req: t2v, set: []any{"payload", []any{}}, want: "payload: must be a string, got an empty list"},
		{name: "object for a boolean", op: "text2video", req: t2v, set: []any{"audio", map[string]any{}}, want: "audio: must be true or false, got an object"},
		{name: "number as text", op: "text2video", req: t2v, set: []any{"duration", "5"}, want: `duration: must be a whole number, got "5"`},
		{name: "empty list of images is unset", op: "reference2image", req: `{"model":"svcq2","prompt":"p","images":[]}`},
		{name: "another model's field left empty", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/1"],"movement_amplitude":""}`},
	})
	got := Normalize(api.OpText2Video, decode(t, `{"model":"svcq3-pro","prompt":"p","duration":"","seed":null,"payload":"x","watermark":false}`))
	if b, _ := json.Marshal(got); string(b) != `{"model":"svcq3-pro","payload":"x","prompt":"p","watermark":false}` {
		t.Errorf("Normalize sends %s", b)
	}
}

// 16. "Integers written 5.0 or 1e1 are sent as 5 and 10; a non-integral
// value is refused."
func TestIntegerSpellings(t *testing.T) {
	const t2v = `{"model":"svcq3-pro","prompt":"p"}`
	runEdgeCases(t, []edgeCase{
		{name: "5.0", op: "text2video", req: t2v, set: []any{"duration", json.Number("5.0")}},
		{name: "1e1", op: "text2video", req: t2v, set: []any{"duration", json.Number("1e1")}},
		{name: "5.5", op: "text2video", req: t2v, set: []any{"duration", json.Number("5.5")}, want: "duration: must be a whole number, got 5.5"},
		{name: "1e999", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v1"}`, set: []any{"voice_setting_speed", json.Number("1e999")},
			want: "voice_setting_speed: 1e999 is too large to be a number", not: "json.Number"},
		{name: "speed .5 as read", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v1","voice_setting_speed":0.5}`},
	})
	got := Normalize(api.OpText2Video, decode(t, `{"model":"svcq3-pro","prompt":"p","duration":5.0,"wm_position":1e0,"seed":9007199254740993}`))
	if b, _ := json.Marshal(got); string(b) != `{"duration":5,"model":"svcq3-pro","prompt":"p","seed":9007199254740993,"wm_position":1}` {
		t.Errorf("Normalize sends %s", b)
	}
	tts := Normalize(api.OpAudioTTS, decode(t, `{"voice_setting_speed":1.50}`))
	if b, _ := json.Marshal(tts); string(b) != `{"voice_setting_speed":1.50}` {
		t.Errorf("a number field is rewritten: %s", b)
	}
}

// 17. "A single string where an image list is expected ... send it as a
// one-item list."
func TestSingleImageStringIsSentAsAList(t *testing.T) {
	for _, c := range []struct{ op, req string }{
		{"img2video", `{"model":"svcq3-pro","images":"https://e.com/a.png"}`},
		{"reference2video", `{"model":"svcq2","prompt":"p","images":"https://e.com/a.png"}`},
		{"mv", `{"images":"https://e.com/a.png","audio_url":"https://e.com/a.mp3"}`},
	} {
		m := decode(t, c.req)
		if errs := Validate(api.Operation(c.op), m); errs != nil {
			t.Errorf("%s: %v", c.op, errs)
		}
		if l, ok := Normalize(api.Operation(c.op), m)["images"].([]any); !ok || len(l) != 1 || l[0] != "https://e.com/a.png" {
			t.Errorf("%s: images sent as %#v", c.op, Normalize(api.Operation(c.op), m)["images"])
		}
	}
}

// 18. Subject references, blank prompts, premium_mv images, seed -1,
// from == to, "at most 10 MB".
func TestSpecBoundsAsWritten(t *testing.T) {
	const cat = `{"name":"cat","images":["https://e.com/c.png"]}`
	const mv = `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3"}`
	runEdgeCases(t, []edgeCase{
		{name: "[@cat] names a subject", op: "reference2video", req: `{"model":"svcq2","prompt":"[@cat] runs, [@cat] jumps","subjects":[` + cat + `]}`},
		{name: "[@dog] names no subject", op: "reference2video", req: `{"model":"svcq2","prompt":"[@cat] chases [@dog]","subjects":[` + cat + `]}`,
			want: "prompt: [@dog] names no subject; subjects are named cat", not: "[@cat]"},
		{name: "[@dog] in the images form", op: "reference2video", req: `{"model":"svcq3","prompt":"[@dog] runs","images":["https://e.com/1"]}`,
			want: "prompt: [@dog] names no subject; subjects are named in the subjects form"},
		{name: "svcq4-preview prompts are not read for subjects", op: "reference2video", req: `{"model":"svcq4-preview","prompt":"[@1] runs","images":["https://e.com/1"]}`},

		{name: "prompt of spaces", op: "text2video", req: `{"model":"svcq3-pro","prompt":"  \t\n "}`, want: "prompt: required"},
		{name: "optional prompt of spaces", op: "img2video", req: `{"model":"svcq3-pro","prompt":"   ","images":["https://e.com/1"]}`},

		{name: "dance with 5 images", op: "premium_mv", req: `{"premium_mv_mode":"dance","audio_url":"https://e.com/a.mp3"}`, set: []any{"images", images(5)}},
		{name: "dance with 6 images", op: "premium_mv", req: `{"premium_mv_mode":"dance","audio_url":"https://e.com/a.mp3"}`, set: []any{"images", images(6)}},
		{name: "dance with 7 images", op: "premium_mv", req: `{"premium_mv_mode":"dance","audio_url":"https://e.com/a.mp3"}`, set: []any{"images", images(7)},
			want: "images: premium_mv takes at most 6 images, got 7"},
		{name: "dance without images", op: "premium_mv", req: `{"premium_mv_mode":"dance","audio_url":"https://e.com/a.mp3"}`,
			want: "images: required for dance; give 1 to 6 images"},

		{name: "seed -1", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":-1}`},
		{name: "seed -1 for sounds", op: "timing2audio", req: `{"model":"audio1.0","seed":-1,"timing_prompts":[{"from":0,"to":1,"prompt":"p"}]}`},
		{name: "timing from == to", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":2,"to":2,"prompt":"click"}]}`},
		{name: "timing from after to", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":3,"to":2,"prompt":"p"}]}`,
			want: "timing_prompts[0]: from (3) must not be after to (2)"},

		{name: "lip_ref_url of exactly 10 MB", op: "mv", req: mv, set: []any{"lip_ref_url", paddedPNG(t, 10<<20)}},
		{name: "lip_ref_url over 10 MB", op: "mv", req: mv, set: []any{"lip_ref_url", paddedPNG(t, 10<<20+1)},
			want: "lip_ref_url: decoded size is 10485761 bytes; at most 10 MB (10485760 bytes)"},
		{name: "image of exactly 10 MB", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{paddedPNG(t, 10<<20)}},
			want: "images[0]: decoded size is 10485760 bytes; must be under 10 MB (10485760 bytes)"},
		{name: "image under 10 MB", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{paddedPNG(t, 10<<20-1)}}},
	})
}

// 19. "Messages: no Go internals, no rounding that hides the reason,
// plural agreement, a pause of 100 says the 99.99 limit; an upper-case
// DATA: URI is a data URI."
func TestMessagesSayWhatIsAllowed(t *testing.T) {
	runEdgeCases(t, []edgeCase{
		{name: "model as an object", op: "text2video", req: `{"model":{"a":1},"prompt":"p"}`, want: "model: must be one of svcq3-pro, svcq3-turbo, svcq1, svcq2, got an object", not: "map["},
		{name: "model as a number", op: "text2video", req: `{"model":5,"prompt":"p"}`, want: "got 5"},
		{name: "duration as a huge number", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","duration":1e400}`, want: "duration: 1e400 is too large to be a whole number", not: "json.Number"},
		{name: "one image", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", images(2)}, want: "images: svcq3-pro takes exactly 1 image, got 2"},
		{name: "two frames", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", images(3)}, want: "takes exactly 2 images, got 3"},
		{name: "pause of 100", op: "audio-tts", req: `{"text":"a <#100#> b","voice_setting_voice_id":"v1"}`, want: "x must lie within 0.01 to 99.99 seconds"},
		{name: "pause of 99.99", op: "audio-tts", req: `{"text":"a <#99.99#> b","voice_setting_voice_id":"v1"}`},
		{name: "pause with three decimals", op: "audio-tts", req: `{"text":"a <#1.255#> b","voice_setting_voice_id":"v1"}`, want: "at most two decimals"},
		{name: "frames just under 0.8", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 179, 178), pngURI(t, 200, 200)}},
			want: "images: the first frame has 31862 pixels and the last 40000, a ratio of 0.797; it must be within 0.8 to 1.25"},
		{name: "audio just under 10 s", op: "mv", req: `{"images":["https://e.com/1"]}`, set: []any{"audio_url", wavURI(9.99)},
			want: "audio_url: audio is 9.99 s long; must be 10 to 300 s"},
		{name: "upper-case DATA: URI", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{redeclare(pngURI(t, 200, 200), "data:", "DATA:")}}},
		{name: "upper-case DATA: URI where a URL is needed", op: "audio-clone", req: `{"voice_id":"Abcdefg1","audio_url":"DATA:audio/wav;base64,AAAA"}`,
			want: "audio_url: must be an http(s) URL the service can fetch, not a data URI"},
		{name: "typo suggests the field", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/1"],"bmg":true}`,
			want: "bmg: not a field of reference2video; did you mean bgm?"},
		{name: "no suggestion for a stranger", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/1"],"colour":"red"}`,
			want: "colour: not a field of reference2video", not: "did you mean"},
	})
	if got := Normalize(api.OpImg2Video, map[string]any{"images": []any{"DATA:image/png;base64,AA"}})["images"].([]any)[0]; got != "data:image/png;base64,AA" {
		t.Errorf("DATA: scheme sent as %q", got)
	}
	spec, _ := Lookup(api.OpImg2Video, "svcq3-pro")
	if f, _ := spec.Field("images"); !strings.Contains(f.Describe(), "exactly 1 image;") && !strings.HasSuffix(f.Describe(), "exactly 1 image") {
		t.Errorf("Describe = %q", f.Describe())
	}
}

func TestSuggest(t *testing.T) {
	for name, want := range map[string]string{
		"bmg": "bgm", "BGM": "bgm", "duraton": "duration", "aspect-ratio": "aspect_ratio", "resolutoin": "resolution",
		"colour": "", "x": "", "prompts": "prompt",
	} {
		if got := Suggest(api.OpReference2Video, name); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
}

// FuzzMP4Header: the box reader takes any bytes a data URI carries without
// panicking, and a frame size it reports is positive.
func FuzzMP4Header(f *testing.F) {
	for _, uri := range []string{mp4URI(3), mp4SizedURI(3, 1920, 1080)} {
		d, _ := ParseDataURI(uri)
		f.Add(d.Data)
	}
	f.Add([]byte("\x00\x00\x00\x01moov\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		MP4Duration(b)
		if w, h, ok := MP4VideoSize(b); ok && (w <= 0 || h <= 0) {
			t.Fatalf("size %dx%d", w, h)
		}
		videoContentProblem(DataURI{ContentType: "video/mp4", Data: b})
	})
}
