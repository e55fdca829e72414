package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// historyIDs are the service ids of a data dir's tasks, newest first.
func historyIDs(t *testing.T, data string) []string {
	t.Helper()
	r := runIn(t, data, "history", "--json")
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var l struct {
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("history --json: %v: %q", err, line)
		}
		ids = append(ids, l.TaskID)
	}
	return ids
}

// create --from fills the field with a finished task's result and records
// where the new task came from; get shows the chain at both ends, and a
// field of another kind is refused naming what it takes.
func TestCreateFromATasksResult(t *testing.T) {
	data := t.TempDir()
	fast := []string{"--sandbox-speed", "3600"}
	if r := runIn(t, data, append([]string{"create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a red fox", "--wait", "--no-download"}, fast...)...); r.code != 0 {
		t.Fatalf("the image: %+v", r)
	}
	image := historyIDs(t, data)[0]
	r := runIn(t, data, append([]string{"create", "img2video", "--from", image, "--set", "prompt=it runs"}, fast...)...)
	if r.code != 0 || !strings.Contains(r.err, "img2video images[0] holds an image of task "+image+" (reference2image): the result URL (valid 23h") {
		t.Fatalf("create --from: %+v", r)
	}
	child := historyIDs(t, data)[0]
	r = runIn(t, data, append([]string{"get", child, "--json"}, fast...)...)
	var got struct {
		ID   string `json:"id"`
		From []struct {
			TaskID    string `json:"task_id"`
			Operation string `json:"operation"`
			Field     string `json:"field"`
			Place     string `json:"place"`
		} `json:"sent_onward_from"`
	}
	if err := json.Unmarshal([]byte(r.out), &got); err != nil || got.ID != child || len(got.From) != 1 || got.From[0].TaskID != image ||
		got.From[0].Operation != "reference2image" || got.From[0].Field != "images[0]" || got.From[0].Place != "the first frame" {
		t.Fatalf("get --json of the child: %v %s", err, r.out)
	}
	r = runIn(t, data, append([]string{"get", image}, fast...)...)
	if !strings.Contains(r.out, "sent onward to: img2video task "+child) || !strings.Contains(r.out, "in its images[0] (the first frame)") {
		t.Fatalf("get of the parent: %+v", r)
	}
	r = runIn(t, data, append([]string{"get", child}, fast...)...)
	if !strings.Contains(r.out, "from: reference2image task "+image) || !strings.Contains(r.out, "its result in images[0] (the first frame)") {
		t.Fatalf("get of the child: %+v", r)
	}

	for _, c := range []struct {
		name string
		args []string
		err  string
	}{
		{"a field of another kind", []string{"create", "lip-sync", "--from", image + ":video_url"},
			"lip-sync's video_url takes a video, not an image; an image goes in ref_photo_url (reference photo)"},
		{"an operation taking no image", []string{"create", "audio-tts", "--from", image},
			"audio-tts has no field that takes an image; it takes a voice in voice_setting_voice_id"},
		{"two places and none named", []string{"create", "start-end2video", "--from", image},
			"start-end2video takes an image in images[0] (first frame) or images[1] (last frame): name one"},
		{"a task not in history", []string{"create", "img2video", "--from", "#99"}, "no task #99 in this history"},
		{"with variations", []string{"create", "img2video", "--from", image, "--variations", "2"}, "--from: not with --variations"},
	} {
		r := runIn(t, data, append(c.args, fast...)...)
		if r.code != 2 || !strings.Contains(r.err, c.err) {
			t.Errorf("%s: exit %d, want 2 with %q:\n%s", c.name, r.code, c.err, r.err)
		}
	}
	if n := len(historyIDs(t, data)); n != 2 {
		t.Errorf("%d tasks in history: a refused --from must send nothing", n)
	}
}

// --from again fills another field from another task: a lip-sync of one
// task's video and another's speech remembers both; two --from for one
// field are refused.
func TestCreateFromTwoTasks(t *testing.T) {
	data := t.TempDir()
	fast := []string{"--sandbox-speed", "3600"}
	if r := runIn(t, data, append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a face", "--wait", "--no-download"}, fast...)...); r.code != 0 {
		t.Fatalf("the video: %+v", r)
	}
	video := historyIDs(t, data)[0]
	if r := runIn(t, data, append([]string{"create", "audio-tts", "--set", "text=hello there", "--set", "voice_setting_voice_id=English_Graceful_Lady", "--no-download"}, fast...)...); r.code != 0 {
		t.Fatalf("the speech: %+v", r)
	}
	speech := historyIDs(t, data)[0]
	r := runIn(t, data, append([]string{"create", "lip-sync", "--from", video, "--from", speech}, fast...)...)
	if r.code != 0 {
		t.Fatalf("create --from --from: %+v", r)
	}
	child := historyIDs(t, data)[0]
	r = runIn(t, data, append([]string{"get", child}, fast...)...)
	if !strings.Contains(r.out, "from: text2video task "+video) || !strings.Contains(r.out, "from: audio-tts task "+speech) {
		t.Fatalf("get of the lip-sync names both sources:\n%s", r.out)
	}
	// The video's lineage: itself, then the lip-sync made from it, with
	// both its sources.
	r = runIn(t, data, append([]string{"get", video, "--lineage"}, fast...)...)
	lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	if r.code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "▶ #1 text2video success "+video) ||
		!strings.HasPrefix(lines[1], "     #3 lip-sync ") || !strings.Contains(lines[2]+lines[3], "audio_url") ||
		!strings.Contains(lines[2]+lines[3], "video_url (source video) of #1 (text2video success)") {
		t.Fatalf("get --lineage of the video:\n%s%s", r.out, r.err)
	}
	// The lip-sync's: its two sources above it, flush left, and itself a
	// step in under them; a task with a prompt shows it, one without none.
	r = runIn(t, data, append([]string{"get", "#3", "--lineage"}, fast...)...)
	lines = strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	if r.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "  #1 text2video success "+video) ||
		!strings.HasSuffix(lines[0], `  "a face"`) || !strings.HasPrefix(lines[1], "  #2 audio-tts ") ||
		!strings.HasPrefix(lines[2], "▶    #3 lip-sync ") || strings.Contains(lines[2], `""`) {
		t.Fatalf("get --lineage of the lip-sync:\n%s%s", r.out, r.err)
	}
	r = runIn(t, data, append([]string{"get", "#3", "--lineage", "--json"}, fast...)...)
	if r.code != 0 || strings.Count(r.out, "\n") != 3 || strings.Count(r.out, `"depth":-1`) != 2 || !strings.Contains(r.out, `"sent_onward_from":[`) {
		t.Fatalf("get --lineage --json of the lip-sync:\n%s%s", r.out, r.err)
	}
	r = runIn(t, data, append([]string{"create", "lip-sync", "--from", video, "--from", video}, fast...)...)
	if r.code != 2 || !strings.Contains(r.err, "video_url is filled by --from already") {
		t.Fatalf("two --from for one field: %+v", r)
	}
}

// get takes #N, a row of clapper history, as --from does; a row never
// taken by the service, or none at all, is refused naming why (exit 2).
func TestGetTakesAHistoryRow(t *testing.T) {
	data := t.TempDir()
	fast := []string{"--sandbox-speed", "3600"}
	if r := runIn(t, data, append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a face", "--wait", "--no-download"}, fast...)...); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	id := historyIDs(t, data)[0]
	if r := runIn(t, data, append([]string{"get", "#1"}, fast...)...); r.code != 0 || !strings.Contains(r.out, id) {
		t.Fatalf("get #1: %+v", r)
	}
	if r := runIn(t, data, append([]string{"get", "#9"}, fast...)...); r.code != 2 || !strings.Contains(r.err, "no task #9 in this history") {
		t.Fatalf("get #9: %+v", r)
	}
}
