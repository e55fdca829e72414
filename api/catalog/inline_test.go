package catalog

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api"
)

// Local paths in media fields become data URIs (relative ones read from
// the given directory); URLs and data URIs stay; an unreadable file is
// named by the field it was given for.
func TestInlineFilesReadsLocalPaths(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	mp4 := []byte("\x00\x00\x00\x10ftypisom\x00\x00\x02\x00")
	for name, data := range map[string][]byte{"a.png": png, "b.png": png, "v.mp4": mp4} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pngURI := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	mp4URI := "data:video/mp4;base64," + base64.StdEncoding.EncodeToString(mp4)

	body := map[string]any{
		"model":    "svcq2-pro",
		"prompt":   "a.png stays a prompt",
		"images":   []any{"a.png", filepath.Join(dir, "b.png"), "https://e.com/c.png", "data:image/png;base64,AA"},
		"subjects": []any{map[string]any{"name": "cat", "images": []any{"a.png"}, "videos": []any{"v.mp4"}}},
	}
	if err := InlineFiles(api.OpReference2Video, body, dir); err != nil {
		t.Fatal(err)
	}
	imgs := body["images"].([]any)
	if imgs[0] != pngURI || imgs[1] != pngURI || imgs[2] != "https://e.com/c.png" || imgs[3] != "data:image/png;base64,AA" {
		t.Errorf("images became %.60v", imgs)
	}
	subj := body["subjects"].([]any)[0].(map[string]any)
	if subj["images"].([]any)[0] != pngURI || subj["videos"].([]any)[0] != mp4URI {
		t.Errorf("subject became %.80v", subj)
	}
	if body["prompt"] != "a.png stays a prompt" {
		t.Errorf("a text field was read as a file: %v", body["prompt"])
	}

	// One path given for a list, and a single media field.
	mv := map[string]any{"images": "a.png", "audio_url": "https://e.com/a.mp3"}
	if err := InlineFiles(api.OpMV, mv, dir); err != nil || mv["images"] != pngURI {
		t.Errorf("a single image path for a list: %.60v, %v", mv["images"], err)
	}
	lip := map[string]any{"video_url": "v.mp4"}
	if err := InlineFiles(api.OpLipSync, lip, dir); err != nil || lip["video_url"] != mp4URI {
		t.Errorf("video_url: %.60v, %v", lip["video_url"], err)
	}

	for _, c := range []struct {
		op   api.Operation
		body map[string]any
		want string
	}{
		{api.OpReference2Video, map[string]any{"model": "svcq2", "images": []any{"https://e.com/1.png", "missing.png"}}, "images[1]: "},
		{api.OpReference2Video, map[string]any{"model": "svcq2-pro", "subjects": []any{map[string]any{"name": "c", "videos": []any{"a.png"}}}},
			"subjects[0].videos[0]: "},
		{api.OpLipSync, map[string]any{"video_url": "a.png"}, "video_url: "},
	} {
		err := InlineFiles(c.op, c.body, dir)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error starting %q", c.op, err, c.want)
		}
	}
}

// The user's catalog file: in force once read; a file that is too large,
// a directory or a missing file is refused, and leaves nothing in force.
func TestLoadUserFile(t *testing.T) {
	t.Cleanup(ResetUser)
	dir := t.TempDir()
	good := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(good, []byte(`[{"operation":"text2video","models":[{"model":"svcq9","like":"svcq1"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadUserFile(good); err != nil {
		t.Fatal(err)
	}
	if ModelSource(api.OpText2Video, "svcq9") != LayerUser {
		t.Errorf("svcq9 from %q, want the user layer", ModelSource(api.OpText2Video, "svcq9"))
	}
	ResetUser()

	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, append([]byte("["), make([]byte, maxUserFile)...), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		big:                             "at most 4 MB",
		dir:                             "a directory, not a file",
		filepath.Join(dir, "none.json"): "catalog file: ",
	} {
		err := LoadUserFile(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
		if userLayer.Load() != nil {
			t.Errorf("%s: a refused file is in force", filepath.Base(path))
		}
	}
	exact := filepath.Join(dir, "exact.json")
	padded := []byte(`[{"operation":"text2video","models":[{"model":"svcq9"}]}]`)
	padded = append(padded, []byte(strings.Repeat(" ", maxUserFile-len(padded)))...)
	if err := os.WriteFile(exact, padded, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadUserFile(exact); err != nil {
		t.Errorf("a file of exactly 4 MB: %v", err)
	}
}

// Which layer brought a model: the spec's tables, the service layer, the
// user's file; "" for a model nobody has.
func TestModelSource(t *testing.T) {
	for _, c := range []struct {
		op    api.Operation
		model string
		want  Layer
	}{
		{api.OpText2Video, "svcq1", LayerSpec},
		{api.OpAudioTTS, "", LayerSpec},
		{api.OpImg2Video, "svcq2-turbo", LayerService},
		{api.OpText2Video, "svcq9", ""},
		{api.OpAudioTTS, "svcq1", ""},
	} {
		if got := ModelSource(c.op, c.model); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.op, c.model, got, c.want)
		}
	}
}
