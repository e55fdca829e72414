package sandbox_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/api/sandbox"
)

// The bounds below are written from the sentences of
// spec/service-api.md, each quoted, and not from api/catalog's tables: a
// table or a comparison that drifts from the spec fails here. Each bound
// is sent at the bound (accepted) and one step past it (refused), through
// the two public doors a request passes: catalog.Validate, which clapper
// runs before sending, and the sandbox over HTTP, which plays the service.

type specBound struct {
	spec  string // the spec's words
	op    api.Operation
	field string // the field the refusal must name
	ok    string // a request at the bound
	past  string // the same request one step past it
	set   func(t testing.TB, ok bool) map[string]any
}

const (
	anImage = `"https://example.com/a.png"`
	anAudio = `"https://example.com/a.mp3"`
)

func fill(n int, s string) string { return strings.Repeat(s, n) }

// pngData is a data URI of a PNG whose header says w x h: a one-pixel PNG
// with its IHDR rewritten (checks read the header, and encoding a real
// 4096-pixel picture would cost seconds under the race detector).
func pngData(t testing.TB, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	// Signature (8), then the IHDR chunk: length (4), "IHDR" (4), width,
	// height, and the rest of its 13 bytes, then its CRC over type and data.
	ihdr := data[12 : 12+4+13]
	binary.BigEndian.PutUint32(ihdr[4:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[8:], uint32(h))
	binary.BigEndian.PutUint32(data[12+4+13:], crc32.ChecksumIEEE(ihdr))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
}

// wavData is a silent 8 kHz 8-bit mono WAV lasting exactly secs (to 1/8000 s).
func wavData(secs float64) string {
	n := int(secs*8000 + 0.5)
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

// mp4Data is an MP4 lasting secs whose video track is w x h.
func mp4Data(secs float64, w, h int) string {
	box := func(typ string, payload ...[]byte) []byte {
		body := bytes.Join(payload, nil)
		out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(out, typ...), body...)
	}
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], 1000)
	binary.BigEndian.PutUint32(mvhd[16:], uint32(secs*1000+0.5))
	tkhd := make([]byte, 84)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	file := append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")), box("moov", box("mvhd", mvhd), box("trak", box("tkhd", tkhd)))...)
	return "data:video/mp4;base64," + base64.StdEncoding.EncodeToString(file)
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// media builds a request whose one field holds generated media, at the
// bound when ok and past it otherwise.
func media(base, field string, list bool, at, past func(testing.TB) string) func(testing.TB, bool) map[string]any {
	return func(t testing.TB, ok bool) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(base), &m); err != nil {
			t.Fatalf("bad base %s: %v", base, err)
		}
		v := past(t)
		if ok {
			v = at(t)
		}
		if list {
			m[field] = []any{v}
		} else {
			m[field] = v
		}
		return m
	}
}

func frames(first, last [2]int) func(testing.TB) string {
	return func(t testing.TB) string {
		return q(pngData(t, first[0], first[1])) + "," + q(pngData(t, last[0], last[1]))
	}
}

func specBounds() []specBound {
	png := func(w, h int) func(testing.TB) string { return func(t testing.TB) string { return pngData(t, w, h) } }
	wav := func(secs float64) func(testing.TB) string { return func(testing.TB) string { return wavData(secs) } }
	mp4 := func(secs float64, w, h int) func(testing.TB) string {
		return func(testing.TB) string { return mp4Data(secs, w, h) }
	}
	const (
		i2v  = `{"model":"svcq3-pro"}`
		mv   = `{"images":[` + anImage + `]}`
		mvLR = `{"images":[` + anImage + `],"audio_url":` + anAudio + `}`
		pro  = `{"model":"svcq2-pro","prompt":"a cat","images":[` + anImage + `]}`
	)
	timing := func(dur, from, to string) string {
		return `{"model":"audio1.0","duration":` + dur + `,"timing_prompts":[{"from":` + from + `,"to":` + to + `,"prompt":"a door"}]}`
	}
	return []specBound{
		// Shared input rules: "Minimum 128x128 pixels. Aspect ratio within 1:4 to 4:1."
		{spec: "Minimum 128x128 pixels (width)", op: api.OpImg2Video, field: "images", set: media(i2v, "images", true, png(128, 128), png(127, 128))},
		{spec: "Minimum 128x128 pixels (height)", op: api.OpImg2Video, field: "images", set: media(i2v, "images", true, png(128, 128), png(128, 127))},
		{spec: "Aspect ratio within 1:4 to 4:1 (4:1 inclusive)", op: api.OpImg2Video, field: "images", set: media(i2v, "images", true, png(512, 128), png(513, 128))},
		{spec: "Aspect ratio within 1:4 to 4:1 (1:4 inclusive)", op: api.OpImg2Video, field: "images", set: media(i2v, "images", true, png(128, 512), png(128, 513))},
		// mv images: "ratio within 1:4 to 4:1".
		{spec: "mv images: ratio within 1:4 to 4:1", op: api.OpMV, field: "images", set: media(mvLR, "images", true, png(128, 512), png(128, 513))},
		// mv lip_ref_url: "aspect ratio at most 2; longest side under 4096".
		{spec: "lip_ref_url: aspect ratio at most 2", op: api.OpMV, field: "lip_ref_url", set: media(mvLR, "lip_ref_url", false, png(400, 200), png(401, 200))},
		{spec: "lip_ref_url: aspect ratio at most 2 (portrait)", op: api.OpMV, field: "lip_ref_url", set: media(mvLR, "lip_ref_url", false, png(200, 400), png(200, 401))},
		{spec: "lip_ref_url: longest side under 4096", op: api.OpMV, field: "lip_ref_url", set: media(mvLR, "lip_ref_url", false, png(4095, 2048), png(4096, 2048))},
		// start-end2video: "resolution of first divided by resolution of last within 0.8-1.25".
		{spec: "first/last resolution at most 1.25", op: api.OpStartEnd2Video, field: "images", set: func(t testing.TB, ok bool) map[string]any {
			f := frames([2]int{250, 200}, [2]int{200, 200})
			if !ok {
				f = frames([2]int{251, 200}, [2]int{200, 200})
			}
			return decode(t, `{"model":"svcq3-pro","images":[`+f(t)+`]}`)
		}},
		{spec: "first/last resolution at least 0.8", op: api.OpStartEnd2Video, field: "images", set: func(t testing.TB, ok bool) map[string]any {
			f := frames([2]int{200, 200}, [2]int{250, 200})
			if !ok {
				f = frames([2]int{200, 200}, [2]int{251, 200})
			}
			return decode(t, `{"model":"svcq3-pro","images":[`+f(t)+`]}`)
		}},
		// mv audio_url: "10 to 300 seconds".
		{spec: "mv audio: 10 to 300 seconds (lower)", op: api.OpMV, field: "audio_url", set: media(mv, "audio_url", false, wav(10), wav(9.99))},
		{spec: "mv audio: 10 to 300 seconds (upper)", op: api.OpMV, field: "audio_url", set: media(mv, "audio_url", false, wav(300), wav(300.01))},
		// premium_mv audio_url: "10-300 seconds".
		{spec: "premium_mv audio: 10-300 seconds", op: api.OpPremiumMV, field: "audio_url",
			set: media(`{"premium_mv_mode":"perform","images":[`+anImage+`]}`, "audio_url", false, wav(300), wav(300.01))},
		// reference2video videos: "one of at most 8 seconds or two of 5 seconds; ... min 128x128; aspect ratio within 1:4 to 4:1".
		{spec: "one video of at most 8 seconds", op: api.OpReference2Video, field: "videos", set: media(pro, "videos", true, mp4(8, 640, 360), mp4(8.1, 640, 360))},
		{spec: "two videos of 5 seconds", op: api.OpReference2Video, field: "videos", set: func(t testing.TB, ok bool) map[string]any {
			second := mp4Data(5.1, 640, 360)
			if ok {
				second = mp4Data(5, 640, 360)
			}
			return decode(t, `{"model":"svcq2-pro","prompt":"a cat","images":[`+anImage+`],"videos":[`+q(mp4Data(5, 640, 360))+`,`+q(second)+`]}`)
		}},
		{spec: "reference video min 128x128", op: api.OpReference2Video, field: "videos", set: media(pro, "videos", true, mp4(5, 128, 128), mp4(5, 128, 127))},
		{spec: "reference video aspect ratio within 1:4 to 4:1", op: api.OpReference2Video, field: "videos", set: media(pro, "videos", true, mp4(5, 512, 128), mp4(5, 513, 128))},

		// timing2audio: "duration 2-10 seconds"; "from and to within [0, duration]"; "prompt at most 1500 characters".
		{spec: "timing2audio duration 2-10 (lower)", op: api.OpTiming2Audio, field: "duration", ok: timing("2", "0", "1"), past: timing("1.99", "0", "1")},
		{spec: "timing2audio duration 2-10 (upper)", op: api.OpTiming2Audio, field: "duration", ok: timing("10", "0", "1"), past: timing("10.01", "0", "1")},
		{spec: "to within [0, duration] (given duration)", op: api.OpTiming2Audio, field: "timing_prompts", ok: timing("4", "0", "4"), past: timing("4", "0", "4.01")},
		{spec: "from within [0, duration] (given duration)", op: api.OpTiming2Audio, field: "timing_prompts", ok: timing("4", "4", "4"), past: timing("4", "4.01", "4.01")},
		{spec: "from within [0, duration] (zero)", op: api.OpTiming2Audio, field: "timing_prompts", ok: timing("4", "0", "1"), past: timing("4", "-0.01", "1")},
		{spec: "to within [0, duration] (default 10)", op: api.OpTiming2Audio, field: "timing_prompts",
			ok:   `{"model":"audio1.0","timing_prompts":[{"from":0,"to":10,"prompt":"a door"}]}`,
			past: `{"model":"audio1.0","timing_prompts":[{"from":0,"to":10.01,"prompt":"a door"}]}`},
		{spec: "timing prompt at most 1500 characters", op: api.OpTiming2Audio, field: "timing_prompts",
			ok:   `{"model":"audio1.0","timing_prompts":[{"from":0,"to":1,"prompt":"` + fill(1500, "a") + `"}]}`,
			past: `{"model":"audio1.0","timing_prompts":[{"from":0,"to":1,"prompt":"` + fill(1501, "a") + `"}]}`},

		// audio-tts: "shorter than 10000 characters"; pauses "x in [0.01, 99.99] with at most two decimals";
		// speed "[0.5, 2]"; volume "0-10"; pitch "[-12, 12]".
		{spec: "tts text shorter than 10000 characters", op: api.OpAudioTTS, field: "text",
			ok: `{"voice_setting_voice_id":"narrator01","text":"` + fill(9999, "a") + `"}`, past: `{"voice_setting_voice_id":"narrator01","text":"` + fill(10000, "a") + `"}`},
		{spec: "tts pause at most 99.99", op: api.OpAudioTTS, field: "text",
			ok: `{"voice_setting_voice_id":"narrator01","text":"one<#99.99#>two"}`, past: `{"voice_setting_voice_id":"narrator01","text":"one<#100#>two"}`},
		{spec: "tts pause at least 0.01", op: api.OpAudioTTS, field: "text",
			ok: `{"voice_setting_voice_id":"narrator01","text":"one<#0.01#>two"}`, past: `{"voice_setting_voice_id":"narrator01","text":"one<#0.00#>two"}`},
		{spec: "tts pause at most two decimals", op: api.OpAudioTTS, field: "text",
			ok: `{"voice_setting_voice_id":"narrator01","text":"one<#1.25#>two"}`, past: `{"voice_setting_voice_id":"narrator01","text":"one<#1.255#>two"}`},
		{spec: "tts speed range [0.5, 2] (lower)", op: api.OpAudioTTS, field: "voice_setting_speed",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_speed":0.5}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_speed":0.49}`},
		{spec: "tts speed range [0.5, 2] (upper)", op: api.OpAudioTTS, field: "voice_setting_speed",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_speed":2}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_speed":2.01}`},
		{spec: "tts volume range 0-10", op: api.OpAudioTTS, field: "voice_setting_volume",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_volume":10}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_volume":11}`},
		{spec: "tts volume range 0-10 (lower)", op: api.OpAudioTTS, field: "voice_setting_volume",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_volume":0}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_volume":-1}`},
		{spec: "tts pitch range [-12, 12]", op: api.OpAudioTTS, field: "voice_setting_pitch",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_pitch":-12}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_pitch":-13}`},
		{spec: "tts pitch range [-12, 12] (upper)", op: api.OpAudioTTS, field: "voice_setting_pitch",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_pitch":12}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","voice_setting_pitch":13}`},
		{spec: "tts payload at most 1048576 characters", op: api.OpAudioTTS, field: "payload",
			ok: `{"voice_setting_voice_id":"narrator01","text":"hi","payload":"` + fill(1048576, "p") + `"}`, past: `{"voice_setting_voice_id":"narrator01","text":"hi","payload":"` + fill(1048577, "p") + `"}`},

		// lip-sync text: "#x# inserts a pause of x seconds, x in [0.01, 99.99]".
		{spec: "lip-sync pause at most 99.99", op: api.OpLipSync, field: "text",
			ok: `{"video_url":"https://example.com/v.mp4","text":"one#99.99#two"}`, past: `{"video_url":"https://example.com/v.mp4","text":"one#100#two"}`},
		{spec: "lip-sync pause at least 0.01", op: api.OpLipSync, field: "text",
			ok: `{"video_url":"https://example.com/v.mp4","text":"one#0.01#two"}`, past: `{"video_url":"https://example.com/v.mp4","text":"one#0.001#two"}`},

		// audio-clone: voice_id "length 8-256"; text "at most 1000 characters"; payload "at most 1048576".
		{spec: "voice_id length 8-256 (lower)", op: api.OpAudioClone, field: "voice_id",
			ok: `{"audio_url":` + anAudio + `,"voice_id":"v2345678"}`, past: `{"audio_url":` + anAudio + `,"voice_id":"v234567"}`},
		{spec: "voice_id length 8-256 (upper)", op: api.OpAudioClone, field: "voice_id",
			ok: `{"audio_url":` + anAudio + `,"voice_id":"v` + fill(255, "x") + `"}`, past: `{"audio_url":` + anAudio + `,"voice_id":"v` + fill(256, "x") + `"}`},
		{spec: "clone preview text at most 1000 characters", op: api.OpAudioClone, field: "text",
			ok: `{"audio_url":` + anAudio + `,"voice_id":"v2345678","text":"` + fill(1000, "a") + `"}`, past: `{"audio_url":` + anAudio + `,"voice_id":"v2345678","text":"` + fill(1001, "a") + `"}`},

		// Prompt limits: "5000 (video, svcq1/svcq2 families), 2000 (svcq1 image-to-video, reference2image,
		// trending-replicate), 3000 (one-click operations) characters".
		{spec: "reference2video prompt at most 5000", op: api.OpReference2Video, field: "prompt",
			ok: `{"model":"svcq2","images":[` + anImage + `],"prompt":"` + fill(5000, "a") + `"}`, past: `{"model":"svcq2","images":[` + anImage + `],"prompt":"` + fill(5001, "a") + `"}`},
		{spec: "svcq1 image-to-video prompt at most 2000", op: api.OpImg2Video, field: "prompt",
			ok: `{"model":"svcq1","images":[` + anImage + `],"prompt":"` + fill(2000, "a") + `"}`, past: `{"model":"svcq1","images":[` + anImage + `],"prompt":"` + fill(2001, "a") + `"}`},
		{spec: "reference2image prompt at most 2000", op: api.OpReference2Image, field: "prompt",
			ok: `{"model":"svcq2","prompt":"` + fill(2000, "a") + `"}`, past: `{"model":"svcq2","prompt":"` + fill(2001, "a") + `"}`},
		{spec: "trending-replicate prompt at most 2000", op: api.OpTrendingReplicate, field: "prompt",
			ok: `{"video_url":"https://example.com/v.mp4","prompt":"` + fill(2000, "a") + `"}`, past: `{"video_url":"https://example.com/v.mp4","prompt":"` + fill(2001, "a") + `"}`},
		{spec: "mv prompt at most 3000", op: api.OpMV, field: "prompt",
			ok: `{"images":[` + anImage + `],"audio_url":` + anAudio + `,"prompt":"` + fill(3000, "a") + `"}`, past: `{"images":[` + anImage + `],"audio_url":` + anAudio + `,"prompt":"` + fill(3001, "a") + `"}`},
		{spec: "premium_mv prompt at most 3000", op: api.OpPremiumMV, field: "prompt",
			ok:   `{"premium_mv_mode":"perform","images":[` + anImage + `],"audio_url":` + anAudio + `,"prompt":"` + fill(3000, "a") + `"}`,
			past: `{"premium_mv_mode":"perform","images":[` + anImage + `],"audio_url":` + anAudio + `,"prompt":"` + fill(3001, "a") + `"}`},
		{spec: "general_one_click prompt at most 3000", op: api.OpGeneralOneClick, field: "prompt",
			ok: `{"images":[` + anImage + `],"duration":30,"prompt":"` + fill(3000, "a") + `"}`, past: `{"images":[` + anImage + `],"duration":30,"prompt":"` + fill(3001, "a") + `"}`},

		// Counts: mv images "1-7"; general_one_click images "1-7"; premium_mv lip_ref_urls "at most 2";
		// reference2image "svcq2: 0-7 images; svcq1: 1-7 images".
		{spec: "mv images 1-7", op: api.OpMV, field: "images",
			ok: `{"audio_url":` + anAudio + `,"images":[` + fill(6, anImage+",") + anImage + `]}`, past: `{"audio_url":` + anAudio + `,"images":[` + fill(7, anImage+",") + anImage + `]}`},
		{spec: "general_one_click images 1-7", op: api.OpGeneralOneClick, field: "images",
			ok: `{"duration":30,"images":[` + fill(6, anImage+",") + anImage + `]}`, past: `{"duration":30,"images":[` + fill(7, anImage+",") + anImage + `]}`},
		{spec: "premium_mv lip_ref_urls at most 2", op: api.OpPremiumMV, field: "lip_ref_urls",
			ok:   `{"premium_mv_mode":"sing","audio_url":` + anAudio + `,"lip_ref_urls":[` + anImage + `,` + anImage + `]}`,
			past: `{"premium_mv_mode":"sing","audio_url":` + anAudio + `,"lip_ref_urls":[` + anImage + `,` + anImage + `,` + anImage + `]}`},
		{spec: "reference2image svcq2: 0-7 images", op: api.OpReference2Image, field: "images",
			ok: `{"model":"svcq2","prompt":"p","images":[` + fill(6, anImage+",") + anImage + `]}`, past: `{"model":"svcq2","prompt":"p","images":[` + fill(7, anImage+",") + anImage + `]}`},
		{spec: "reference2image svcq1: 1-7 images", op: api.OpReference2Image, field: "images",
			ok: `{"model":"svcq1","prompt":"p","images":[` + anImage + `]}`, past: `{"model":"svcq1","prompt":"p","images":[]}`},
		{spec: "svcq4-preview accepts 0-3 sounds", op: api.OpReference2Video, field: "sounds",
			ok:   `{"model":"svcq4-preview","prompt":"p","images":[` + anImage + `],"sounds":[` + anAudio + `,` + anAudio + `,` + anAudio + `]}`,
			past: `{"model":"svcq4-preview","prompt":"p","images":[` + anImage + `],"sounds":[` + anAudio + `,` + anAudio + `,` + anAudio + `,` + anAudio + `]}`},
		{spec: "subject images at most 3", op: api.OpReference2Video, field: "subjects",
			ok:   `{"model":"svcq2","prompt":"[@a] runs","subjects":[{"name":"a","images":[` + anImage + `,` + anImage + `,` + anImage + `]}]}`,
			past: `{"model":"svcq2","prompt":"[@a] runs","subjects":[{"name":"a","images":[` + anImage + `,` + anImage + `,` + anImage + `,` + anImage + `]}]}`},
		{spec: "svcq2-pro: 1-4 images with videos", op: api.OpReference2Video, field: "images",
			ok:   `{"model":"svcq2-pro","prompt":"p","videos":["https://example.com/v.mp4"],"images":[` + fill(3, anImage+",") + anImage + `]}`,
			past: `{"model":"svcq2-pro","prompt":"p","videos":["https://example.com/v.mp4"],"images":[` + fill(4, anImage+",") + anImage + `]}`},

		// Durations: "svcq2 ... 5; 1-10"; "svcq3-drama 8; 2-16"; img2video "svcq3 family ... range 1-16";
		// "multi-scene duration 1-180 seconds".
		{spec: "svcq2 duration 1-10", op: api.OpReference2Video, field: "duration",
			ok: `{"model":"svcq2","prompt":"p","images":[` + anImage + `],"duration":10}`, past: `{"model":"svcq2","prompt":"p","images":[` + anImage + `],"duration":11}`},
		{spec: "svcq3-drama duration 2-16", op: api.OpReference2Video, field: "duration",
			ok: `{"model":"svcq3-drama","prompt":"p","images":[` + anImage + `],"duration":2}`, past: `{"model":"svcq3-drama","prompt":"p","images":[` + anImage + `],"duration":1}`},
		// The spec's 3-15 for svcq3-mix is widened by the service layer
		// (service.json, citing "two mirrors of the official page": 1-16).
		{spec: "svcq3-mix duration 1-16 (service layer, lower)", op: api.OpReference2Video, field: "duration",
			ok: `{"model":"svcq3-mix","prompt":"p","images":[` + anImage + `],"duration":1}`, past: `{"model":"svcq3-mix","prompt":"p","images":[` + anImage + `],"duration":0}`},
		{spec: "svcq3-mix duration 1-16 (service layer, upper)", op: api.OpReference2Video, field: "duration",
			ok: `{"model":"svcq3-mix","prompt":"p","images":[` + anImage + `],"duration":16}`, past: `{"model":"svcq3-mix","prompt":"p","images":[` + anImage + `],"duration":17}`},
		{spec: "img2video svcq3 family 1-16", op: api.OpImg2Video, field: "duration",
			ok: `{"model":"svcq3-turbo","images":[` + anImage + `],"duration":16}`, past: `{"model":"svcq3-turbo","images":[` + anImage + `],"duration":17}`},
		{spec: "start-end2video svcq3 family 1-16", op: api.OpStartEnd2Video, field: "duration",
			ok: `{"model":"svcq3-pro-fast","images":[` + anImage + `,` + anImage + `],"duration":1}`, past: `{"model":"svcq3-pro-fast","images":[` + anImage + `,` + anImage + `],"duration":0}`},
		{spec: "multi-scene duration 1-180", op: api.OpGeneralOneClick, field: "duration",
			ok: `{"images":[` + anImage + `],"duration":180}`, past: `{"images":[` + anImage + `],"duration":181}`},

		// Shared optional fields: "payload ... at most 1048576 characters"; "wm_position ... 1 ... 4".
		{spec: "video payload at most 1048576", op: api.OpText2Video, field: "payload",
			ok: `{"model":"svcq3-pro","prompt":"p","payload":"` + fill(1048576, "p") + `"}`, past: `{"model":"svcq3-pro","prompt":"p","payload":"` + fill(1048577, "p") + `"}`},
		{spec: "general_one_click payload at most 1048576", op: api.OpGeneralOneClick, field: "payload",
			ok: `{"images":[` + anImage + `],"duration":30,"payload":"` + fill(1048576, "p") + `"}`, past: `{"images":[` + anImage + `],"duration":30,"payload":"` + fill(1048577, "p") + `"}`},
		{spec: "wm_position 1-4", op: api.OpText2Video, field: "wm_position",
			ok: `{"model":"svcq3-pro","prompt":"p","watermark":true,"wm_position":4}`, past: `{"model":"svcq3-pro","prompt":"p","watermark":true,"wm_position":5}`},
	}
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("bad test JSON %.200s: %v", s, err)
	}
	return m
}

func (c specBound) request(t testing.TB, ok bool) map[string]any {
	if c.set != nil {
		return c.set(t, ok)
	}
	if ok {
		return decode(t, c.ok)
	}
	return decode(t, c.past)
}

func TestSpecBoundsThroughValidate(t *testing.T) {
	for _, c := range specBounds() {
		t.Run(c.spec, func(t *testing.T) {
			if errs := catalog.Validate(c.op, c.request(t, true)); errs != nil {
				t.Errorf("at the bound: refused: %v", errs)
			}
			errs := catalog.Validate(c.op, c.request(t, false))
			if errs == nil {
				t.Fatal("one step past the bound: accepted")
			}
			for _, e := range errs {
				if e.Field == c.field {
					return
				}
			}
			t.Errorf("past the bound: refused for %v, not for %s", errs, c.field)
		})
	}
}

func TestSpecBoundsThroughTheSandbox(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Clock: sandbox.NewFakeClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	post := func(t *testing.T, op api.Operation, body map[string]any) (int, string) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, ts.URL+op.Path(), bytes.NewReader(raw))
		req.Header.Set("Authorization", "Token "+sandbox.EmbeddedToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for i, c := range specBounds() {
		t.Run(c.spec, func(t *testing.T) {
			ok := c.request(t, true)
			if c.op == api.OpAudioClone {
				// Voice ids may not repeat: each case clones its own.
				id := ok["voice_id"].(string)
				ok["voice_id"] = fmt.Sprintf("%s%03d", id[:len(id)-3], i)
			}
			if status, body := post(t, c.op, ok); status != http.StatusOK {
				t.Errorf("at the bound: %d %.300s", status, body)
			}
			status, body := post(t, c.op, c.request(t, false))
			if status != http.StatusBadRequest {
				t.Errorf("one step past the bound: %d %.300s", status, body)
			} else if !strings.Contains(body, c.field) {
				t.Errorf("past the bound: the refusal does not name %s: %.300s", c.field, body)
			}
		})
	}
}

// Multi-scene edit: "prompt (string, required, at most 3000 characters)",
// through ValidateEdit and the sandbox's edit path over HTTP.
func TestEditPromptBound(t *testing.T) {
	ok, past := strings.Repeat("a", 3000), strings.Repeat("a", 3001)
	if errs := catalog.ValidateEdit(map[string]any{"job_id": "1", "prompt": ok}); errs != nil {
		t.Errorf("an edit prompt of 3000: %v", errs)
	}
	if errs := catalog.ValidateEdit(map[string]any{"job_id": "1", "prompt": past}); errs == nil || errs[0].Field != "prompt" {
		t.Errorf("an edit prompt of 3001: %v", errs)
	}
	clk := sandbox.NewFakeClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
	srv, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	c, err := api.NewClient(ts.URL, sandbox.EmbeddedToken)
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Create(t.Context(), api.OpGeneralOneClick, map[string]any{"images": []any{"https://example.com/a.png"}, "prompt": "p", "duration": 10})
	if err != nil {
		t.Fatal(err)
	}
	var job *api.OneClickJob
	for i := 0; ; i++ {
		if job, err = c.GetOneClick(t.Context(), task.Identifier()); err == nil && job.State == api.StateSuccess {
			break
		}
		if i > 2000 {
			t.Fatalf("the job never finished: %v %v", job, err)
		}
		clk.Advance(5 * time.Second)
		srv.Advance()
	}
	scene := job.JobRecords[0].Jobs[0].ID
	if _, err := c.EditScene(t.Context(), task.Identifier(), api.EditSceneRequest{JobID: scene, Prompt: past}); err == nil {
		t.Error("the sandbox took an edit prompt of 3001 characters")
	} else if e, isAPI := api.AsError(err); !isAPI || e.Status != http.StatusBadRequest {
		t.Errorf("an edit prompt of 3001: %v", err)
	}
	if _, err := c.EditScene(t.Context(), task.Identifier(), api.EditSceneRequest{JobID: scene, Prompt: ok}); err != nil {
		t.Errorf("an edit prompt of 3000: %v", err)
	}
}
