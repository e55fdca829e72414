package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Bodies in the shapes public clients of the real service send (MCP
// servers, ComfyUI nodes, SDKs, gateways), replayed over HTTP in order: the
// newer models and fields, a system voice, a mislabelled image, the upload
// flow and stored subjects. {upload} and {subject} stand for what the
// upload and subject steps answered.
func TestReplayOfPublicClientBodies(t *testing.T) {
	h := newHarness(t, Config{})
	pngB64 := strings.SplitN(mislabelledPNG, ",", 2)[1]
	steps := []struct{ name, method, path, body string }{
		{"text2video svcq2 with every setting", "POST", "/ent/v2/text2video", `{"model":"svcq2","prompt":"a cat surfing","duration":5,"seed":0,"aspect_ratio":"16:9","resolution":"720p","movement_amplitude":"auto","bgm":false,"payload":"","callback_url":"","off_peak":false}`},
		{"text2video svcq2 10 s 1080p 9:16", "POST", "/ent/v2/text2video", `{"model":"svcq2","prompt":"rain on neon streets","duration":10,"aspect_ratio":"9:16","resolution":"1080p"}`},
		{"text2video svcq1 style general", "POST", "/ent/v2/text2video", `{"model":"svcq1","style":"general","prompt":"a lighthouse","duration":5,"aspect_ratio":"1:1","resolution":"1080p"}`},
		{"text2video svcq3-pro audio", "POST", "/ent/v2/text2video", `{"model":"svcq3-pro","prompt":"two friends talk","duration":8,"audio":true,"resolution":"1080p"}`},
		{"img2video svcq2-pro", "POST", "/ent/v2/img2video", `{"model":"svcq2-pro","images":["` + img + `"],"prompt":"","duration":5,"resolution":"720p","movement_amplitude":"auto","bgm":false}`},
		{"img2video svcq2-turbo audio_type", "POST", "/ent/v2/img2video", `{"model":"svcq2-turbo","images":["` + img + `"],"prompt":"she speaks","audio":true,"audio_type":"speech_only","voice_id":"professional_host","duration":10,"resolution":"1080p"}`},
		{"img2video svcq2-pro-fast single image string", "POST", "/ent/v2/img2video", `{"model":"svcq2-pro-fast","images":"` + img + `","duration":4}`},
		{"img2video svcq1 is_rec audio_type", "POST", "/ent/v2/img2video", `{"model":"svcq1","images":["` + img + `"],"is_rec":true,"audio":true,"audio_type":"sound_effect_only","voice_id":"female-yujie"}`},
		{"img2video mislabelled PNG", "POST", "/ent/v2/img2video", `{"model":"svcq3-turbo","images":["` + mislabelledPNG + `"],"prompt":"zoom in"}`},
		{"start-end2video svcq2-pro-fast 8 s is_rec", "POST", "/ent/v2/start-end2video", `{"model":"svcq2-pro-fast","images":["` + img + `","` + img + `"],"duration":8,"resolution":"1080p","is_rec":true,"movement_amplitude":"auto"}`},
		{"start-end2video svcq1 5 s", "POST", "/ent/v2/start-end2video", `{"model":"svcq1","images":["` + img + `","` + img + `"],"prompt":"day to night","duration":5,"resolution":"1080p","bgm":false}`},
		{"start-end2video svcq2-turbo 540p", "POST", "/ent/v2/start-end2video", `{"model":"svcq2-turbo","images":["` + img + `","` + img + `"],"duration":3,"resolution":"540p"}`},
		{"reference2video svcq2 images bgm", "POST", "/ent/v2/reference2video", `{"model":"svcq2","images":["` + img + `","` + img + `","` + img + `"],"prompt":"a dog runs","duration":10,"aspect_ratio":"4:3","bgm":true,"seed":2147483647}`},
		{"reference2video subjects by id", "POST", "/ent/v2/reference2video", `{"model":"svcq2-pro","prompt":"[@hero] jumps","subjects":[{"id":"hero","images":["` + img + `"],"voice_id":""}],"duration":5}`},
		{"reference2video a stored subject from elsewhere", "POST", "/ent/v2/reference2video", `{"model":"svcq3","prompt":"[@ann] sings","subjects":[{"name":"ann","server_id":"7311190531209383"}]}`},
		{"reference2image svcq2 2K from text", "POST", "/ent/v2/reference2image", `{"model":"svcq2","prompt":"a poster","aspect_ratio":"3:2","resolution":"2K","seed":0}`},
		{"reference2image mislabelled PNG", "POST", "/ent/v2/reference2image", `{"model":"svcq2","images":["` + mislabelledPNG + `"],"prompt":"as a painting","aspect_ratio":"auto"}`},
		{"audio-tts system voice, emotion, pronunciations", "POST", "/ent/v2/audio-tts", `{"text":"Hello, world.","voice_setting_voice_id":"female-shaonv","voice_setting_speed":1.0,"voice_setting_volume":1,"voice_setting_pitch":0,"voice_setting_emotion":"happy","pronunciation_dict_tone":["omg/oh my god"]}`},
		{"audio-tts English system voice", "POST", "/ent/v2/audio-tts", `{"text":"Welcome back.","voice_setting_voice_id":"English_Trustworthy_Man"}`},
		{"audio-clone with preview", "POST", "/ent/v2/audio-clone", `{"audio_url":"https://example.com/voice.mp3","voice_id":"MyVoice_2026","text":"This is my voice."}`},
		{"timing2audio", "POST", "/ent/v2/timing2audio", `{"model":"audio1.0","duration":10,"timing_prompts":[{"from":0,"to":3,"prompt":"thunder"},{"from":2,"to":9.5,"prompt":"rain"}],"seed":0}`},
		{"lip-sync text with a system voice", "POST", "/ent/v2/lip-sync", `{"video_url":"https://example.com/v.mp4","text":"Hello there, friend.","voice_id":"English_Graceful_Lady","speed":1.2,"volume":5}`},
		{"lip-sync audio and text", "POST", "/ent/v2/lip-sync", `{"video_url":"https://example.com/v.mp4","audio_url":"https://example.com/a.wav","text":"ignored text"}`},
		{"template-story", "POST", "/ent/v2/template-story", `{"story":"love_story","images":["` + img + `","` + img + `"]}`},
		{"trending-replicate", "POST", "/ent/v2/trending-replicate", `{"video_url":"https://example.com/v.mp4","images":["` + img + `"],"quality":"plus","resolution":"720p","aspect_ratio":"9:16"}`},
		{"general_one_click", "POST", "/ent/v2/one-click/general_one_click", `{"images":["` + img + `"],"prompt":"a trip","duration":30}`},
		{"credits", "GET", "/ent/v2/credits", ``},
		{"credits with detail", "GET", "/ent/v2/credits?show_detail=true", ``},
		{"open an upload", "POST", "/tools/v2/files/uploads", `{"scene":"vidu"}`},
		{"put the image", "PUT", "{put_url}", ``},
		{"finish the upload", "PUT", "/tools/v2/files/uploads/{upload_id}/finish", `{"etag":"{etag}"}`},
		{"img2video with the upload", "POST", "/ent/v2/img2video", `{"model":"svcq2-pro","images":["{uri}"],"prompt":"it moves"}`},
		{"create a stored subject", "POST", "/ent/v2/subjects", `{"name":"mia","images":["` + img + `","data:image/png;base64,` + pngB64 + `"],"voice_id":"lovely_girl"}`},
		{"a subject from a mislabelled PNG", "POST", "/ent/v2/subjects", `{"name":"ann","images":["` + mislabelledPNG + `"]}`},
		{"open an upload without a body", "POST", "/tools/v2/files/uploads", ``},
		{"list stored subjects", "GET", "/ent/v2/subjects?count=10", ``},
		{"list system subjects", "GET", "/ent/v2/subjects?ownership=system", ``},
		{"update the stored subject", "PUT", "/ent/v2/subjects/{subject}", `{"style":"anime","description":"a girl in a red coat"}`},
		{"reference2video with the stored subject", "POST", "/ent/v2/reference2video", `{"model":"svcq2","prompt":"[@mia] waves","subjects":[{"name":"mia","server_id":"{subject}"}]}`},
	}
	vars := map[string]string{}
	passed := 0
	for _, st := range steps {
		path, body := st.path, st.body
		for k, v := range vars {
			path = strings.ReplaceAll(path, "{"+k+"}", v)
			body = strings.ReplaceAll(body, "{"+k+"}", v)
		}
		var status int
		var hdr http.Header
		var raw []byte
		if strings.HasPrefix(path, "http") {
			// The put_url is storage: the bytes go as they are, no token.
			req, err := http.NewRequest(st.method, path, bytes.NewReader(pngOf(t)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "image/png")
			res, err := h.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			status, hdr = res.StatusCode, res.Header
		} else {
			var b any
			if body != "" {
				b = body
			}
			status, hdr, raw = h.call(st.method, path, b, nil)
		}
		if status/100 != 2 {
			t.Errorf("%s: HTTP %d: %s", st.name, status, raw)
			continue
		}
		passed++
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		switch st.name {
		case "open an upload":
			vars["upload_id"], _ = m["id"].(string)
			vars["put_url"], _ = m["put_url"].(string)
		case "put the image":
			vars["etag"] = strings.ReplaceAll(hdr.Get("ETag"), `"`, `\"`)
		case "finish the upload":
			vars["uri"], _ = m["uri"].(string)
		case "create a stored subject":
			vars["subject"], _ = m["id"].(string)
		}
		if _, ok := m["code"]; ok {
			t.Errorf("%s: a successful body carries code: %s", st.name, raw)
		}
	}
	if passed != len(steps) {
		t.Errorf("%d of %d replayed steps pass", passed, len(steps))
	}
}

func pngOf(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString(strings.SplitN(mislabelledPNG, ",", 2)[1])
	if err != nil {
		t.Fatal(err)
	}
	return b
}
