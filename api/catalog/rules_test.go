package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"clapper/api"

	"golang.org/x/image/bmp"
)

func pngURI(t testing.TB, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func jpegURI(t testing.TB, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func bmpURI(t testing.TB, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := bmp.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return "data:image/bmp;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// wavURI is a silent 8 kHz 8-bit mono WAV of the given length.
func wavURI(secs float64) string {
	n := int(secs * 8000)
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(8000), uint16(1), uint16(8)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(n))
	b.Write(make([]byte, n))
	return "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// mp4URI is an MP4 whose moov/mvhd says it lasts secs.
func mp4URI(secs float64) string {
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], 1000)
	binary.BigEndian.PutUint32(mvhd[16:], uint32(secs*1000))
	box := func(typ string, payload []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(payload)))
		return append(append(out, typ...), payload...)
	}
	file := append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")), box("moov", box("mvhd", mvhd))...)
	return "data:video/mp4;base64," + base64.StdEncoding.EncodeToString(file)
}

type ruleCase struct {
	name  string
	op    string
	req   string
	set   []any  // extra fields (name, value) applied after decoding
	field string // "" = must be valid
}

func TestRules(t *testing.T) {
	ok128 := pngURI(t, 128, 128)
	cases := []ruleCase{
		// Shared input rules: images.
		{name: "image 128x128 accepted", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{ok128}}},
		{name: "image jpeg accepted", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{jpegURI(t, 200, 150)}}},
		{name: "image 127 wide", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 127, 128)}}, field: "images"},
		{name: "image 127 high", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 128, 127)}}, field: "images"},
		{name: "image ratio 4:1 accepted", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 512, 128)}}},
		{name: "image ratio over 4:1", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 516, 128)}}, field: "images"},
		{name: "image ratio 1:4 accepted", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 128, 512)}}},
		{name: "image ratio under 1:4", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 128, 516)}}, field: "images"},
		{name: "data URI without type", op: "img2video", req: `{"model":"svcq3-pro","images":["data:;base64,AAAA"]}`, field: "images"},
		{name: "data URI not base64", op: "img2video", req: `{"model":"svcq3-pro","images":["data:image/png,AAAA"]}`, field: "images"},
		{name: "data URI broken base64", op: "img2video", req: `{"model":"svcq3-pro","images":["data:image/png;base64,@@@@"]}`, field: "images"},
		{name: "image format gif refused", op: "img2video", req: `{"model":"svcq3-pro","images":["data:image/gif;base64,R0lGODlhAQABAAAAACw="]}`, field: "images"},
		{name: "image bytes not an image", op: "img2video", req: `{"model":"svcq3-pro","images":["data:image/png;base64,aGVsbG8="]}`, field: "images"},
		{name: "image plain path refused", op: "img2video", req: `{"model":"svcq3-pro","images":["/tmp/a.png"]}`, field: "images"},
		{name: "image over 10 MB decoded", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{"data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, 10<<20))}}, field: "images"},

		{name: "images as a single string", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":"https://e.com/a.png"}`},
		{name: "images single string counted", op: "start-end2video", req: `{"model":"svcq3-pro","images":"https://e.com/a.png"}`, field: "images"},

		{name: "another model's flag at false tolerated", op: "reference2video", req: `{"model":"svcq4-preview","prompt":"p","images":["https://e.com/a.png"],"bgm":false,"off_peak":false}`},
		{name: "svcq1-only field at its default refused", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/a.png"],"movement_amplitude":"auto"}`, field: "movement_amplitude"},
		{name: "non-default of another model's field refused", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/a.png"],"movement_amplitude":"large"}`, field: "movement_amplitude"},

		// Shared optional video fields.
		{name: "payload at limit", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p"}`, set: []any{"payload", strings.Repeat("x", 1048576)}},
		{name: "payload over limit", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p"}`, set: []any{"payload", strings.Repeat("x", 1048577)}, field: "payload"},
		{name: "wm_position 1 and 4", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","wm_position":4}`},
		{name: "wm_position 0", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","wm_position":0}`, field: "wm_position"},
		{name: "wm_position 5", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","wm_position":5}`, field: "wm_position"},
		{name: "meta_data JSON", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","meta_data":"{\"Label\":\"x\"}"}`},
		{name: "meta_data not JSON", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","meta_data":"{Label"}`, field: "meta_data"},
		{name: "callback not a URL", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","callback_url":"localhost:9"}`, field: "callback_url"},
		{name: "seed 0", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":0}`},
		{name: "seed 2^53-1", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":9007199254740991}`},
		{name: "seed 2^53", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":9007199254740992}`, field: "seed"},
		{name: "lip payload", op: "lip-sync", req: `{"video_url":"https://e.com/v.mp4","text":"hello","payload":"x"}`},
		{name: "seed -(2^53)", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","seed":-9007199254740992}`, field: "seed"},
		{name: "prompt required", op: "text2video", req: `{"model":"svcq3-pro"}`, field: "prompt"},
		{name: "model missing", op: "text2video", req: `{"prompt":"p"}`, field: "model"},
		{name: "model unknown", op: "text2video", req: `{"model":"svcq9","prompt":"p"}`, field: "model"},
		{name: "unknown field", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","colour":"red"}`, field: "colour"},
		{name: "bool as string", op: "text2video", req: `{"model":"svcq3-pro","prompt":"p","audio":"false"}`, field: "audio"},

		// off_peak only when audio is false for svcq1, svcq2 and 2.0-series.
		{name: "q1 off_peak default audio", op: "reference2video", req: `{"model":"svcq1","images":["https://e.com/a.png"],"prompt":"p","off_peak":true}`},
		{name: "q1 off_peak with audio", op: "reference2video", req: `{"model":"svcq1","images":["https://e.com/a.png"],"prompt":"p","off_peak":true,"audio":true}`, field: "off_peak"},
		{name: "q3 off_peak with audio", op: "reference2video", req: `{"model":"svcq3","images":["https://e.com/a.png"],"prompt":"p","off_peak":true}`},
		{name: "t2v q1 off_peak default audio true", op: "text2video", req: `{"model":"svcq1","prompt":"p","off_peak":true}`, field: "off_peak"},
		{name: "t2v q1 off_peak silent", op: "text2video", req: `{"model":"svcq1","prompt":"p","off_peak":true,"audio":false}`},
		{name: "i2v q1 audio disables off_peak", op: "img2video", req: `{"model":"svcq1","images":["https://e.com/a.png"],"off_peak":true,"audio":true}`, field: "off_peak"},
		{name: "se q2 off_peak with audio", op: "start-end2video", req: `{"model":"svcq2-pro","images":["https://e.com/a.png","https://e.com/b.png"],"off_peak":true,"audio":true}`, field: "off_peak"},
		{name: "se q3 off_peak with audio", op: "start-end2video", req: `{"model":"svcq3-pro","images":["https://e.com/a.png","https://e.com/b.png"],"off_peak":true}`},

		// reference2video forms and subjects.
		{name: "neither images nor subjects", op: "reference2video", req: `{"model":"svcq2","prompt":"p"}`, field: "images"},
		{name: "subjects form", op: "reference2video", req: `{"model":"svcq2","prompt":"[@cat] runs","subjects":[{"name":"cat","images":["https://e.com/c.png"]}]}`},
		{name: "images and subjects", op: "reference2video", req: `{"model":"svcq2","prompt":"p","images":["https://e.com/a.png"],"subjects":[{"name":"cat"}]}`, field: "subjects"},
		{name: "subject without name", op: "reference2video", req: `{"model":"svcq2","prompt":"p","subjects":[{"images":["https://e.com/c.png"]}]}`, field: "subjects"},
		{name: "subject names repeat", op: "reference2video", req: `{"model":"svcq2","prompt":"p","subjects":[{"name":"a"},{"name":"a"}]}`, field: "subjects"},
		{name: "subject 3 images", op: "reference2video", req: `{"model":"svcq2","prompt":"p","subjects":[{"name":"a","images":["https://e.com/1","https://e.com/2","https://e.com/3"]}]}`},
		{name: "subject 4 images", op: "reference2video", req: `{"model":"svcq2","prompt":"p","subjects":[{"name":"a","images":["https://e.com/1","https://e.com/2","https://e.com/3","https://e.com/4"]}]}`, field: "subjects"},
		{name: "7 subjects svcq3", op: "reference2video", req: `{"model":"svcq3","prompt":"p","subjects":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"},{"name":"f"},{"name":"g"}]}`},
		{name: "8 subjects svcq3", op: "reference2video", req: `{"model":"svcq3","prompt":"p","subjects":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"},{"name":"f"},{"name":"g"},{"name":"h"}]}`, field: "subjects"},
		{name: "video subject not for svcq2", op: "reference2video", req: `{"model":"svcq2","prompt":"p","subjects":[{"name":"a","videos":["https://e.com/v.mp4"]}]}`, field: "subjects"},
		{name: "pro 4 plain + 2 video subjects", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e","videos":["https://e.com/v.mp4"]},{"name":"f","server_id":"s1","videos":["https://e.com/v.mp4"]}]}`},
		{name: "pro 5 plain subjects", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"}]}`, field: "subjects"},
		{name: "pro 2 temporary video subjects", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":"e","videos":["https://e.com/v.mp4"]},{"name":"f","videos":["https://e.com/v.mp4"]}]}`, field: "subjects"},
		{name: "pro 3 video subjects", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":"e","server_id":"1","videos":["https://e.com/v.mp4"]},{"name":"f","server_id":"2","videos":["https://e.com/v.mp4"]},{"name":"g","server_id":"3","videos":["https://e.com/v.mp4"]}]}`, field: "subjects"},
		{name: "pro subject 2 videos", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":"e","videos":["https://e.com/v.mp4","https://e.com/w.mp4"]}]}`, field: "subjects"},
		{name: "pro subject video over 5 s", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p"}`, set: []any{"subjects", []any{map[string]any{"name": "e", "videos": []any{mp4URI(6)}}}}, field: "subjects"},

		// svcq2-pro videos: 1-7 images without, 1-4 with; one of at most 8 s or two of 5 s.
		{name: "pro 4 images with videos", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1","https://e.com/2","https://e.com/3","https://e.com/4"],"videos":["https://e.com/v.mp4"]}`},
		{name: "pro 5 images with videos", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1","https://e.com/2","https://e.com/3","https://e.com/4","https://e.com/5"],"videos":["https://e.com/v.mp4"]}`, field: "images"},
		{name: "pro 3 videos", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"],"videos":["https://e.com/v","https://e.com/w","https://e.com/x"]}`, field: "videos"},
		{name: "pro one video of 8 s", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`, set: []any{"videos", []any{mp4URI(8)}}},
		{name: "pro one video of 9 s", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`, set: []any{"videos", []any{mp4URI(9)}}, field: "videos"},
		{name: "pro two videos of 5 s", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`, set: []any{"videos", []any{mp4URI(5), mp4URI(5)}}},
		{name: "pro two videos, one of 6 s", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`, set: []any{"videos", []any{mp4URI(5), mp4URI(6)}}, field: "videos"},
		{name: "video wrong type", op: "reference2video", req: `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"],"videos":["data:video/webm;base64,AAAA"]}`, field: "videos"},

		// sounds: svcq3-drama and svcq4-preview; svcq4-preview 0-3.
		{name: "q4 3 sounds", op: "reference2video", req: `{"model":"svcq4-preview","prompt":"p","images":["https://e.com/1"],"sounds":["https://e.com/1.mp3","https://e.com/2.mp3","https://e.com/3.mp3"]}`},
		{name: "q4 4 sounds", op: "reference2video", req: `{"model":"svcq4-preview","prompt":"p","images":["https://e.com/1"],"sounds":["https://e.com/1.mp3","https://e.com/2.mp3","https://e.com/3.mp3","https://e.com/4.mp3"]}`, field: "sounds"},
		{name: "drama sound data URI as in spec", op: "reference2video", req: `{"model":"svcq3-drama","prompt":"p","images":["https://e.com/1"]}`, set: []any{"sounds", []any{"data:video/mp3;base64,AAAA"}}},

		// start-end2video: frame resolution ratio 0.8-1.25.
		{name: "frames ratio 1.25", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 250, 200), pngURI(t, 200, 200)}}},
		{name: "frames ratio over 1.25", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 252, 200), pngURI(t, 200, 200)}}, field: "images"},
		{name: "frames ratio 0.8", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 160, 200), pngURI(t, 200, 200)}}},
		{name: "frames ratio under 0.8", op: "start-end2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{pngURI(t, 158, 200), pngURI(t, 200, 200)}}, field: "images"},
		{name: "one frame", op: "start-end2video", req: `{"model":"svcq3-pro","images":["https://e.com/1"]}`, field: "images"},

		// reference2image.
		{name: "q2 text to image", op: "reference2image", req: `{"model":"svcq2","prompt":"p"}`},
		{name: "q2 auto without image", op: "reference2image", req: `{"model":"svcq2","prompt":"p","aspect_ratio":"auto"}`, field: "aspect_ratio"},
		{name: "q1 needs an image", op: "reference2image", req: `{"model":"svcq1","prompt":"p"}`, field: "images"},

		// audio-clone.
		{name: "clone ok", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1"}`},
		{name: "clone voice 7 chars", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdef1"}`, field: "voice_id"},
		{name: "clone voice 256 chars", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3"}`, set: []any{"voice_id", "v" + strings.Repeat("a", 255)}},
		{name: "clone voice 257 chars", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3"}`, set: []any{"voice_id", "v" + strings.Repeat("a", 256)}, field: "voice_id"},
		{name: "clone voice digit first", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"1bcdefgh"}`, field: "voice_id"},
		{name: "clone voice ends with _", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"abcdefg_"}`, field: "voice_id"},
		{name: "clone voice ends with -", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"abcdefg-"}`, field: "voice_id"},
		{name: "clone voice with dot", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"abc.defgh"}`, field: "voice_id"},
		{name: "clone voice inner - and _", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"a-b_c-d_e9"}`},
		{name: "clone data URI audio", op: "audio-clone", req: `{"audio_url":"data:audio/wav;base64,AAAA","voice_id":"Abcdefg1"}`, field: "audio_url"},
		{name: "clone preview 1000", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1"}`, set: []any{"text", strings.Repeat("a", 1000)}},
		{name: "clone preview 1001", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1"}`, set: []any{"text", strings.Repeat("a", 1001)}, field: "text"},
		{name: "clone sample text without clip", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1","prompt_text":"Hello."}`, field: "prompt_audio_url"},
		{name: "clone sample text unpunctuated", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1","prompt_audio_url":"https://e.com/s.mp3","prompt_text":"Hello"}`, field: "prompt_text"},
		{name: "clone sample clip alone", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1","prompt_audio_url":"https://e.com/s.mp3"}`},
		{name: "clone sample ok", op: "audio-clone", req: `{"audio_url":"https://e.com/v.mp3","voice_id":"Abcdefg1","prompt_audio_url":"https://e.com/s.mp3","prompt_text":"Hello."}`},

		// audio-tts.
		{name: "tts ok", op: "audio-tts", req: `{"text":"Hello <#0.5#> world","voice_setting_voice_id":"male-qn-qingse"}`},
		{name: "tts 9999 chars", op: "audio-tts", req: `{"voice_setting_voice_id":"v"}`, set: []any{"text", strings.Repeat("a", 9999)}},
		{name: "tts 10000 chars", op: "audio-tts", req: `{"voice_setting_voice_id":"v"}`, set: []any{"text", strings.Repeat("a", 10000)}, field: "text"},
		{name: "tts no voice", op: "audio-tts", req: `{"text":"hi"}`, field: "voice_setting_voice_id"},
		{name: "tts speed 0.5", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_speed":0.5}`},
		{name: "tts speed 0.49", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_speed":0.49}`, field: "voice_setting_speed"},
		{name: "tts speed 2", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_speed":2}`},
		{name: "tts speed 2.01", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_speed":2.01}`, field: "voice_setting_speed"},
		{name: "tts volume 10", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_volume":10}`},
		{name: "tts volume 11", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_volume":11}`, field: "voice_setting_volume"},
		{name: "tts volume -1", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_volume":-1}`, field: "voice_setting_volume"},
		{name: "tts volume 1.5", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_volume":1.5}`, field: "voice_setting_volume"},
		{name: "tts pitch -12 and 12", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_pitch":-12}`},
		{name: "tts pitch 13", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_pitch":13}`, field: "voice_setting_pitch"},
		{name: "tts pitch -13", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_pitch":-13}`, field: "voice_setting_pitch"},
		{name: "tts emotion calm", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_emotion":"calm"}`},
		{name: "tts emotion bored", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"v","voice_setting_emotion":"bored"}`, field: "voice_setting_emotion"},
		{name: "tts pause at start", op: "audio-tts", req: `{"text":"<#1#> hi","voice_setting_voice_id":"v"}`, field: "text"},
		{name: "tts pauses consecutive", op: "audio-tts", req: `{"text":"hi <#1#> <#1#> there","voice_setting_voice_id":"v"}`, field: "text"},
		{name: "tts pause 100", op: "audio-tts", req: `{"text":"hi <#100#> there","voice_setting_voice_id":"v"}`, field: "text"},
		{name: "tts pause 0", op: "audio-tts", req: `{"text":"hi <#0#> there","voice_setting_voice_id":"v"}`, field: "text"},
		{name: "tts pause 99.99", op: "audio-tts", req: `{"text":"hi <#99.99#> there","voice_setting_voice_id":"v"}`},
		{name: "tts pause 0.01", op: "audio-tts", req: `{"text":"hi <#0.01#> there","voice_setting_voice_id":"v"}`},
		{name: "tts pause 3 decimals", op: "audio-tts", req: `{"text":"hi <#1.234#> there","voice_setting_voice_id":"v"}`, field: "text"},
		{name: "tts voice with space", op: "audio-tts", req: `{"text":"hi","voice_setting_voice_id":"my voice"}`, field: "voice_setting_voice_id"},

		// timing2audio.
		{name: "timing duration 2", op: "timing2audio", req: `{"model":"audio1.0","duration":2,"timing_prompts":[{"from":0,"to":2,"prompt":"p"}]}`},
		{name: "timing duration 1.9", op: "timing2audio", req: `{"model":"audio1.0","duration":1.9,"timing_prompts":[{"from":0,"to":1,"prompt":"p"}]}`, field: "duration"},
		{name: "timing duration 10.5", op: "timing2audio", req: `{"model":"audio1.0","duration":10.5,"timing_prompts":[{"from":0,"to":1,"prompt":"p"}]}`, field: "duration"},
		{name: "timing to past duration", op: "timing2audio", req: `{"model":"audio1.0","duration":4,"timing_prompts":[{"from":0,"to":4.5,"prompt":"p"}]}`, field: "timing_prompts"},
		{name: "timing to past default 10", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":9,"to":10.5,"prompt":"p"}]}`, field: "timing_prompts"},
		{name: "timing from negative", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":-0.5,"to":1,"prompt":"p"}]}`, field: "timing_prompts"},
		{name: "timing overlap ok", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":0,"to":5,"prompt":"rain"},{"from":2,"to":3,"prompt":"thunder"}]}`},
		{name: "timing reversed", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[{"from":3,"to":2,"prompt":"p"}]}`, field: "timing_prompts"},
		{name: "timing prompt 1500", op: "timing2audio", req: `{"model":"audio1.0"}`, set: []any{"timing_prompts", []any{map[string]any{"from": 0.0, "to": 1.0, "prompt": strings.Repeat("a", 1500)}}}},
		{name: "timing prompt 1501", op: "timing2audio", req: `{"model":"audio1.0"}`, set: []any{"timing_prompts", []any{map[string]any{"from": 0.0, "to": 1.0, "prompt": strings.Repeat("a", 1501)}}}, field: "timing_prompts"},
		{name: "timing none", op: "timing2audio", req: `{"model":"audio1.0","timing_prompts":[]}`, field: "timing_prompts"},
		{name: "timing wrong model", op: "timing2audio", req: `{"model":"audio2.0","timing_prompts":[{"from":0,"to":1,"prompt":"p"}]}`, field: "model"},

		// lip-sync.
		{name: "lip text", op: "lip-sync", req: `{"video_url":"https://e.com/v.mp4","text":"hello #1.5# world"}`},
		{name: "lip video only (neither field is required)", op: "lip-sync", req: `{"video_url":"https://e.com/v.mp4"}`},
		{name: "lip pause at end", op: "lip-sync", req: `{"video_url":"https://e.com/v.mp4","text":"hello #1#"}`, field: "text"},
		{name: "lip hash kept as text", op: "lip-sync", req: `{"video_url":"https://e.com/v.mp4","text":"we are #1 fans"}`},
		{name: "lip no video", op: "lip-sync", req: `{"text":"hello"}`, field: "video_url"},

		// template-story.
		{name: "story unknown", op: "template-story", req: `{"story":"space_opera","images":["https://e.com/1"]}`, field: "story"},
		{name: "story no images", op: "template-story", req: `{"story":"pigsy"}`, field: "images"},

		// trending-replicate.
		{name: "trend quality", op: "trending-replicate", req: `{"video_url":"https://e.com/v.mp4","quality":"plus"}`},
		{name: "trend quality bad", op: "trending-replicate", req: `{"video_url":"https://e.com/v.mp4","quality":"ultra"}`, field: "quality"},

		// mv.
		{name: "mv lip_sync 540p", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","lip_sync":true,"resolution":"540p"}`, field: "resolution"},
		{name: "mv 540p without lip_sync", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","resolution":"540p"}`},
		{name: "mv colour", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","subtitle_color":"#00ff7A"}`},
		{name: "mv colour bad", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","subtitle_color":"green"}`, field: "subtitle_color"},
		{name: "mv language ja", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","language":"ja"}`, field: "language"},
		{name: "mv quality high", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3","quality":"high"}`},
		{name: "mv audio 10 s", op: "mv", req: `{"images":["https://e.com/1"]}`, set: []any{"audio_url", wavURI(10)}},
		{name: "mv audio 9 s", op: "mv", req: `{"images":["https://e.com/1"]}`, set: []any{"audio_url", wavURI(9)}, field: "audio_url"},
		{name: "mv no audio", op: "mv", req: `{"images":["https://e.com/1"]}`, field: "audio_url"},
		{name: "mv lip ref bmp type", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3"}`, set: []any{"lip_ref_url", bmpURI(t, 200, 200)}},
		{name: "mv lip ref wider than 2", op: "mv", req: `{"images":["https://e.com/1"],"audio_url":"https://e.com/a.mp3"}`, set: []any{"lip_ref_url", pngURI(t, 402, 200)}, field: "lip_ref_url"},

		// premium_mv.
		{name: "pmv sing needs faces", op: "premium_mv", req: `{"premium_mv_mode":"sing","audio_url":"https://e.com/a.mp3"}`, field: "lip_ref_urls"},
		{name: "pmv sing ok", op: "premium_mv", req: `{"premium_mv_mode":"sing","audio_url":"https://e.com/a.mp3","lip_ref_urls":["https://e.com/f.png"]}`},
		{name: "pmv 3 faces", op: "premium_mv", req: `{"premium_mv_mode":"sing","audio_url":"https://e.com/a.mp3","lip_ref_urls":["https://e.com/1","https://e.com/2","https://e.com/3"]}`, field: "lip_ref_urls"},
		{name: "pmv dance needs images", op: "premium_mv", req: `{"premium_mv_mode":"dance","audio_url":"https://e.com/a.mp3"}`, field: "images"},
		{name: "pmv mode bad", op: "premium_mv", req: `{"premium_mv_mode":"rap","audio_url":"https://e.com/a.mp3"}`, field: "premium_mv_mode"},
		{name: "pmv language ja", op: "premium_mv", req: `{"premium_mv_mode":"sing","audio_url":"https://e.com/a.mp3","lip_ref_urls":["https://e.com/f.png"],"language":"ja"}`},
		{name: "pmv 540p", op: "premium_mv", req: `{"premium_mv_mode":"sing","audio_url":"https://e.com/a.mp3","lip_ref_urls":["https://e.com/f.png"],"resolution":"540p"}`, field: "resolution"},

		// general_one_click.
		{name: "goc duration 1", op: "general_one_click", req: `{"images":["https://e.com/1"],"duration":1}`},
		{name: "goc duration 180", op: "general_one_click", req: `{"images":["https://e.com/1"],"duration":180}`},
		{name: "goc duration 0", op: "general_one_click", req: `{"images":["https://e.com/1"],"duration":0}`, field: "duration"},
		{name: "goc duration 181", op: "general_one_click", req: `{"images":["https://e.com/1"],"duration":181}`, field: "duration"},
		{name: "goc duration missing", op: "general_one_click", req: `{"images":["https://e.com/1"]}`, field: "duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := with(t, c.req, c.set...)
			if c.field == "" {
				expectValid(t, c.op, m)
			} else {
				expectInvalid(t, c.op, m, c.field)
			}
		})
	}
}

func TestEditAndCompose(t *testing.T) {
	if errs := ValidateEdit(decode(t, `{"job_id":"1","prompt":"brighter"}`)); errs != nil {
		t.Errorf("valid edit rejected: %v", errs)
	}
	if errs := ValidateEdit(decode(t, `{"job_id":"1"}`)); errs == nil || errs[0].Field != "prompt" {
		t.Errorf("edit without prompt: %v", errs)
	}
	if errs := ValidateEdit(with(t, `{"job_id":"1"}`, "prompt", strings.Repeat("a", 3001))); errs == nil {
		t.Error("edit prompt over 3000 accepted")
	}
	if errs := ValidateCompose(decode(t, `{"job_ids":[]}`)); errs == nil || errs[0].Field != "job_ids" {
		t.Errorf("compose without jobs: %v", errs)
	}
	if errs := ValidateCompose(decode(t, `{"job_ids":["1","2"]}`)); errs != nil {
		t.Errorf("valid compose rejected: %v", errs)
	}
}

func TestErrorsRenderAsServiceRejection(t *testing.T) {
	errs := Validate(api.OpText2Video, decode(t, `{"model":"svcq3-pro","duration":40}`))
	e := errs.APIError()
	if e.Status != 400 || e.Reason != api.ReasonFieldLacking || strings.Join(e.Fields, ",") != "prompt,duration" {
		t.Errorf("APIError = %+v", e)
	}
}

func TestWithDefaultsKeepsGivenValues(t *testing.T) {
	got := WithDefaults(api.OpReference2Video, decode(t, `{"model":"svcq2","duration":8.0,"images":"x","prompt":"p","payload":null}`))
	if _, ok := got["payload"]; ok {
		t.Error("a null payload is echoed")
	}
	if imgs, ok := got["images"].([]any); !ok || len(imgs) != 1 {
		t.Errorf("images %#v, want a list of one", got["images"])
	}
	if got["duration"] != int64(8) || got["resolution"] != "720p" || got["bgm"] != false || got["wm_position"] != 3 {
		t.Errorf("WithDefaults = %v", got)
	}
	if _, ok := got["off_peak"]; !ok {
		t.Error("off_peak default missing for svcq2")
	}
	q4 := WithDefaults(api.OpReference2Video, decode(t, `{"model":"svcq4-preview"}`))
	if _, ok := q4["bgm"]; ok {
		t.Error("svcq4-preview shows no bgm, but a default was applied")
	}
	if d := WithDefaults(api.OpText2Video, decode(t, `{"model":"svcq1"}`))["wm_position"]; d != 1 {
		t.Errorf("svcq1 text2video wm_position default = %v, want 1 (bottom-right in its numbering)", d)
	}
}

// The spec's "no effect" notes, each once, for the form to mark.
func TestInertValues(t *testing.T) {
	cases := []struct {
		op    api.Operation
		model string
		body  map[string]any
		want  string // the field marked, "" for none
	}{
		{api.OpImg2Video, "svcq1", map[string]any{"prompt": "a fox", "is_rec": true}, "prompt"},
		{api.OpImg2Video, "svcq1", map[string]any{"prompt": "a fox", "is_rec": false}, ""},
		{api.OpImg2Video, "svcq1", map[string]any{"voice_id": "v1", "audio": false}, "voice_id"},
		{api.OpImg2Video, "svcq1", map[string]any{"voice_id": "v1", "audio": true}, ""},
		{api.OpReference2Video, "svcq3", map[string]any{"bgm": true}, "bgm"},
		{api.OpReference2Video, "svcq1", map[string]any{"bgm": true}, ""},
		{api.OpReference2Video, "svcq2", map[string]any{"bgm": true, "duration": 10}, "bgm"},
		{api.OpStartEnd2Video, "svcq3", map[string]any{"movement_amplitude": "large"}, "movement_amplitude"},
		{api.OpStartEnd2Video, "svcq1", map[string]any{"movement_amplitude": "large"}, ""},
	}
	for _, c := range cases {
		got := Inert(c.op, c.model, c.body)
		if c.want == "" && len(got) != 0 || c.want != "" && got[c.want] == "" {
			t.Errorf("%s %s %v: marked %v, want %q", c.op, c.model, c.body, got, c.want)
		}
	}
}
