package mcp

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/api/sandbox"
	"clapper/record"
)

func TestEveryToolIsListedWithSchemasFromTheCatalog(t *testing.T) {
	r := newRig(t, rigOpts{})
	res, err := r.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	want := []string{"create_reference2video", "create_img2video", "create_text2video", "create_start_end2video",
		"create_reference2image", "create_audio_clone", "create_audio_tts", "create_timing2audio", "create_lip_sync",
		"create_template_story", "create_trending_replicate", "create_mv", "create_premium_mv", "create_general_one_click",
		"create_extend", "create_multiframe", "create_upscale_new", "create_text2audio", "create_template2video",
		"validate_request", "describe_operation", "get_task", "wait_task", "list_tasks", "download_results",
		"list_voices", "get_scenes", "edit_scene", "compose_scenes", "get_account", "cancel_task"}
	for _, name := range want {
		if byName[name] == nil {
			t.Errorf("tool %s is not listed", name)
		}
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools listed, want %d", len(res.Tools), len(want))
	}
	for _, op := range api.Operations() {
		tool := byName[ToolName(op)]
		if tool == nil {
			continue
		}
		var s jsonschema.Schema
		b, _ := json.Marshal(tool.InputSchema)
		if err := s.UnmarshalJSON(b); err != nil {
			t.Fatalf("%s: schema: %v", op, err)
		}
		for _, name := range catalog.FieldNames(op) {
			if name == "model" || slices.Contains(unlisted, name) {
				continue // its enum is checked below; unlisted fields serve no agent
			}
			p := s.Properties[name]
			switch {
			case p == nil:
				t.Errorf("%s: field %s missing from the schema", op, name)
				continue
			case p.Type == "" || p.Description == "":
				t.Errorf("%s.%s: no type or description: %+v", op, name, p)
			}
			f, _ := catalog.FieldOf(op, name)
			for _, m := range catalog.Models(op) {
				spec, _ := catalog.Lookup(op, m)
				mf, takes := spec.Field(name)
				if !takes {
					if !strings.Contains(p.Description, "Not ") && !strings.Contains(p.Description, "Only ") {
						t.Errorf("%s.%s: %s does not take it, and the description does not say so: %s", op, name, m, p.Description)
					}
					continue
				}
				// Every rule of the model is the schema's or said in words
				// (for it by name, for "others", or for all).
				for _, part := range ruleParts(mf) {
					if statedBySchema(part.kind, mf, p) || (part.kind == partRequired && slices.Contains(s.Required, name)) {
						continue
					}
					if d, ok := strings.CutPrefix(part.text, "default "); ok && part.kind == partDefault && defaultSaid(p.Description, m, d) {
						continue
					}
					if !strings.Contains(p.Description, part.text) {
						t.Errorf("%s.%s: %s's rule %q is neither the schema's nor said: %s", op, name, m, part.text, p.Description)
					}
				}
				if takes && mf.AnyRatio && (p.Enum != nil || !strings.Contains(p.Description, "or any W:H")) {
					t.Errorf("%s.%s: %s takes any W:H, yet the schema has enum %v or does not say so", op, name, m, p.Enum)
				}
				if takes && f.Kind == catalog.KindEnum && p.Enum != nil {
					for _, o := range mf.Options {
						if !slices.Contains(p.Enum, any(o)) {
							t.Errorf("%s.%s: option %s of %s not in the enum %v", op, name, o, m, p.Enum)
						}
					}
				}
			}
		}
		if models := catalog.Models(op); models != nil {
			got := s.Properties["model"]
			if got == nil || len(got.Enum) != len(models) || !slices.Contains(s.Required, "model") {
				t.Errorf("%s: model enum %v, required %v; want %v", op, got, s.Required, models)
			}
		}
	}
	// A range is the union of the models': text2video durations run 1..16
	// for the svcq3 models, only 5 for svcq1 and 1..10 for svcq2 (the
	// service layer's); each narrower one is said by model.
	d := operationSchema(api.OpText2Video).Properties["duration"]
	if d.Minimum == nil || *d.Minimum != 1 || d.Maximum == nil || *d.Maximum != 16 || !strings.Contains(d.Description, "svcq1: only 5 s | svcq2: 1 to 10 s.") {
		t.Errorf("text2video duration: %+v", d)
	}
	// A model that takes less than the enum is named with what it takes.
	ar := operationSchema(api.OpReference2Image).Properties["aspect_ratio"]
	if len(ar.Enum) != 9 || !strings.HasSuffix(ar.Description, "svcq1: 16:9, 9:16, 1:1, 3:4, 4:3.") {
		t.Errorf("reference2image aspect_ratio: %v %s", ar.Enum, ar.Description)
	}
	// Defaults that differ are said once with their exceptions; a family
	// held whole is named as a glob, a lone model by its name.
	d = operationSchema(api.OpImg2Video).Properties["duration"]
	if !strings.Contains(d.Description, "default 5 (svc2.0: 4). svcq1*: only 5 s | svcq2*: 1 to 10 s") {
		t.Errorf("img2video duration: %s", d.Description)
	}
	at := operationSchema(api.OpReference2Video).Properties["audio_type"]
	if !strings.HasSuffix(at.Description, "Not svcq1, svcq2*, svcq4-preview, svc2.0.") {
		t.Errorf("reference2video audio_type: %s", at.Description)
	}
	if d := operationSchema(api.OpReference2Video).Properties["duration"]; !strings.Contains(d.Description, "| svcq3, svcq3-turbo, svcq4-preview: 3 to 16 s |") {
		t.Errorf("reference2video duration, part of the svcq3 family: %s", d.Description)
	}
	// "others" never stands for a model that takes the schema's plain rules.
	res2 := operationSchema(api.OpImg2Video).Properties["resolution"]
	if strings.Contains(res2.Description, "others:") && strings.Count(res2.Description, "|") < 2 {
		t.Errorf("img2video resolution: %s", res2.Description)
	}
}

func TestABrokenRuleIsRefusedNamingTheFieldAndNothingIsSent(t *testing.T) {
	r := newRig(t, rigOpts{counted: true})
	msg := r.refused(t, "create_text2video", map[string]any{"model": "svcq3-turbo", "prompt": "a fox", "duration": 99})
	if !strings.Contains(msg, "duration: svcq3-turbo accepts 1 to 16 seconds, got 99") || !strings.Contains(msg, "not sent") {
		t.Errorf("refusal: %s", msg)
	}
	msg = r.refused(t, "create_img2video", map[string]any{"model": "svcq9", "images": []string{"https://e.com/a.png"}})
	if !strings.Contains(msg, "model: img2video has no model") {
		t.Errorf("unknown model: %s", msg)
	}
	missing := filepath.Join(r.media, "no-such-file.png")
	msg = r.refused(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "x", "images": []string{missing}})
	if !strings.Contains(msg, "images[0]: "+missing+": no such file") {
		t.Errorf("missing file: %s", msg)
	}
	if n := r.posts.Load(); n != 0 {
		t.Errorf("%d requests reached the service; want none", n)
	}
	if n := len(r.tasks(t)); n != 0 {
		t.Errorf("%d tasks in history; want none", n)
	}
	var v verdict
	r.ok(t, "validate_request", map[string]any{"operation": "start_end2video", "request": map[string]any{"model": "svcq1"}}, &v)
	if v.Valid || len(v.Problems) == 0 || v.Problems[0].Field == "" || v.Operation != "start-end2video" {
		t.Errorf("validate_request on a bad request: %+v", v)
	}
	r.ok(t, "validate_request", map[string]any{"operation": "text2video", "request": map[string]any{"model": "svcq1", "prompt": "a fox"}}, &v)
	if !v.Valid || v.Price == "" {
		t.Errorf("validate_request on a good request: %+v", v)
	}
	if n := r.posts.Load(); n != 0 {
		t.Errorf("validate_request sent %d requests", n)
	}
}

func TestCreateWaitListDownloadOnTheSandbox(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Now())
	r := newRig(t, rigOpts{counted: true, clock: clk})
	// A local file is sent as a data URI, as the CLI does.
	img := filepath.Join(r.media, "ref.png")
	writePNG(t, img, 320, 240)
	var c created
	r.ok(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "a red fox", "images": []string{img}}, &c)
	if c.TaskID == "" || c.Price == "" || !strings.Contains(c.Follow, "wait_task") || c.Operation != "reference2image" {
		t.Fatalf("created: %+v", c)
	}
	r.mu.Lock()
	sent := string(r.lastBody)
	r.mu.Unlock()
	if !strings.Contains(sent, `"data:image/png;base64,`) {
		t.Errorf("the local file was not sent as a data URI: %.200s", sent)
	}
	var done taskOut
	var res *sdk.CallToolResult
	var err error
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		res, err = r.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "wait_task", Arguments: map[string]any{"task_id": c.TaskID, "timeout_seconds": 30},
			Meta: sdk.Meta{"progressToken": "p1"}})
	}()
	// The sandbox's time stands still until the wait has told of the running
	// task; then the task may finish.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		n := len(r.progress)
		r.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress notification while the task ran")
		}
	}
	clk.Advance(time.Hour)
	<-waited
	if err != nil || res.IsError {
		t.Fatalf("wait_task: %v %s", err, text(res))
	}
	decode(t, res, &done)
	if done.State != api.StateSuccess || done.Waited != "finished" || len(done.Results) == 0 || done.Origin != "mcp" {
		t.Fatalf("waited: %+v", done)
	}
	r.mu.Lock()
	progress := slices.Clone(r.progress)
	r.mu.Unlock()
	if len(progress) == 0 {
		t.Errorf("no progress notification while waiting")
	}
	var got taskOut
	r.ok(t, "get_task", map[string]any{"task_id": c.TaskID}, &got)
	if got.State != api.StateSuccess || got.TaskID != c.TaskID || len(got.Results) == 0 || got.Results[0].URL == "" {
		t.Errorf("get_task: %+v", got)
	}
	// A task sent onward from this one: get_task names both ends.
	child, err := r.st.SubmitFrom(t.Context(), api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []any{got.Results[0].URL}},
		[]record.Parent{{LocalID: got.LocalID, Field: "images[0]"}})
	if err != nil {
		t.Fatal(err)
	}
	var kid taskOut
	r.ok(t, "get_task", map[string]any{"task_id": child.Task.Identifier()}, &kid)
	if f := kid.From; len(f) != 1 || f[0].LocalID != got.LocalID || f[0].Operation != "reference2image" || f[0].Field != "images[0]" || f[0].Place != "the first frame" {
		t.Errorf("get_task of the child: sent_onward_from %+v", kid.From)
	}
	r.ok(t, "get_task", map[string]any{"task_id": c.TaskID}, &got)
	if len(got.Onward) != 1 || got.Onward[0].LocalID != child.LocalID || got.Onward[0].Operation != "img2video" {
		t.Errorf("get_task of the parent: sent_onward_to %+v", got.Onward)
	}
	var list taskList
	r.ok(t, "list_tasks", map[string]any{"query": "fox op:reference2image state:success", "limit": 5}, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != c.TaskID {
		t.Errorf("list_tasks: %+v", list)
	}
	// tag: finds the tasks the user tagged (and only them), with their tags.
	if err := r.st.Record().SetLabels(t.Context(), got.LocalID, []string{"keeper"}, "the one"); err != nil {
		t.Fatal(err)
	}
	r.ok(t, "list_tasks", map[string]any{"query": "tag:keeper", "limit": 5}, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != c.TaskID || !slices.Equal(list.Tasks[0].Tags, []string{"keeper"}) || list.Tasks[0].Note != "the one" {
		t.Errorf("list_tasks tag:keeper: %+v", list)
	}
	var dl downloadsOut
	r.ok(t, "download_results", map[string]any{"task_id": c.TaskID}, &dl)
	links := 0
	for _, c := range r.call(t, "download_results", map[string]any{"task_id": c.TaskID}).Content {
		if l, ok := c.(*sdk.ResourceLink); ok && strings.HasPrefix(l.URI, "clapper://") && strings.HasPrefix(l.MIMEType, "image/") {
			links++
		}
	}
	if links == 0 {
		t.Errorf("download_results links no saved image as a resource")
	}
	if len(dl.Files) == 0 {
		t.Fatalf("download_results: %+v", dl)
	}
	i := slices.IndexFunc(dl.Files, func(f fileOut) bool { return f.Kind == string(record.KindURL) })
	if i < 0 {
		t.Fatalf("no result file: %+v", dl)
	}
	f := dl.Files[i]
	if st, err := os.Stat(f.Path); err != nil || st.Size() == 0 || f.Status != "done" || f.Resource == "" {
		t.Fatalf("saved file %+v: %v", f, err)
	}
	rr, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: f.Resource})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "image/png" || len(rr.Contents[0].Blob) == 0 {
		t.Fatalf("resource %s: %v %+v", f.Resource, err, rr)
	}
	// The task is in the history the TUI reads, marked as an agent's.
	task, err := r.st.Record().TaskByID(t.Context(), c.TaskID)
	if err != nil || task.Origin != record.OriginMCP {
		t.Errorf("history: origin %q, %v", task.Origin, err)
	}
}

func TestWaitIsBoundedAndArgumentsAreChecked(t *testing.T) {
	r := newRig(t, rigOpts{})
	if msg := r.refused(t, "wait_task", map[string]any{"task_id": "x", "timeout_seconds": 9999}); !strings.Contains(msg, "timeout_seconds: give 1 to 600") {
		t.Errorf("unbounded wait: %s", msg)
	}
	for _, id := range []string{"nope", "#999"} {
		if msg := r.refused(t, "get_task", map[string]any{"task_id": id}); !strings.Contains(msg, `task_id: "`+id+`" is not in this history`) {
			t.Errorf("unknown task %s: %s", id, msg)
		}
	}
	if msg := r.refused(t, "list_tasks", map[string]any{"query": "op:img2vid"}); !strings.Contains(msg, "query: op:img2vid") {
		t.Errorf("bad query: %s", msg)
	}
	if msg := r.refused(t, "describe_operation", map[string]any{"operation": "text2video", "model": "svcq9"}); !strings.Contains(msg, "model:") {
		t.Errorf("bad model: %s", msg)
	}
	var rules catalog.OperationRules
	r.ok(t, "describe_operation", map[string]any{"operation": "audio_tts"}, &rules)
	if rules.Operation != "audio-tts" || len(rules.Models) != 1 || len(rules.Models[0].Fields) != 8 {
		t.Errorf("describe_operation: %+v", rules)
	}
}

func TestTheDailyCapRefusesAgentWorkPastIt(t *testing.T) {
	body := map[string]any{"model": "svcq1", "prompt": "a fox"}
	price := int64(sandbox.Quote(api.OpText2Video, body))
	r := newRig(t, rigOpts{cap: 2*price + price/2})
	for range 2 {
		var c created
		r.ok(t, "create_text2video", body, &c)
	}
	msg := r.refused(t, "create_text2video", body)
	want := fmt.Sprintf("daily credit cap for agent work is %d credits and agent tasks have cost %d credits today; this request costs %d more", 2*price+price/2, 2*price, price)
	if !strings.Contains(msg, want) {
		t.Errorf("cap refusal: %s\nwant %s", msg, want)
	}
	if n := len(r.tasks(t)); n != 2 {
		t.Errorf("%d tasks in history; the refused one must not be recorded", n)
	}
	// Work the user started in the terminal does not count against it.
	byHand, err := r.st.Record().BeginSubmit(t.Context(), record.Intent{Operation: api.OpText2Video, Model: "svcq1",
		Body: []byte(`{"model":"svcq1","prompt":"by hand"}`), Origin: record.OriginTUI})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.st.Record().MarkSubmitted(t.Context(), byHand, record.SubmittedEcho{TaskID: "by-hand", Credits: price}); err != nil {
		t.Fatal(err)
	}
	spent, err := r.st.Record().CreditsSince(t.Context(), record.OriginMCP, r.tasks(t)[2].CreatedAt.Add(-1))
	if err != nil || spent != 2*price {
		t.Errorf("agent spend %d, %v; want %d", spent, err, 2*price)
	}
}

func TestVoicesAndScenes(t *testing.T) {
	r := newRig(t, rigOpts{})
	var c created
	r.ok(t, "create_audio_clone", map[string]any{"audio_url": "https://example.com/v.wav", "voice_id": "narrator01"}, &c)
	var vs voicesOut
	r.ok(t, "list_voices", map[string]any{}, &vs)
	if len(vs.Voices) != 1 || vs.Voices[0].VoiceID != "narrator01" || !strings.HasPrefix(vs.Voices[0].TimeLeft, "6d 23h") {
		t.Errorf("voices: %+v", vs)
	}
	r.ok(t, "create_general_one_click", map[string]any{"images": []string{"https://example.com/a.png"}, "prompt": "a lighthouse keeper's day", "duration": 25}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	if done.State != api.StateSuccess {
		t.Fatalf("job: %+v", done)
	}
	var job jobOut
	r.ok(t, "get_scenes", map[string]any{"job_id": c.TaskID}, &job)
	if len(job.Scenes) == 0 || len(job.Scenes[0].Versions) == 0 {
		t.Fatalf("scenes: %+v", job)
	}
	var list jobOut
	r.ok(t, "get_scenes", map[string]any{}, &list)
	if len(list.Jobs) != 1 || list.Jobs[0].JobID != c.TaskID {
		t.Errorf("jobs: %+v", list)
	}
	var composed startedOut
	r.ok(t, "compose_scenes", map[string]any{"job_id": c.TaskID}, &composed)
	if composed.VersionID == "" || len(composed.Composed) != len(job.Scenes) {
		t.Errorf("compose: %+v", composed)
	}
	var edit startedOut
	r.ok(t, "edit_scene", map[string]any{"job_id": c.TaskID, "scene_job_id": job.Scenes[0].Versions[0].ID, "prompt": "at dawn"}, &edit)
	if edit.VersionID == "" {
		t.Errorf("edit: %+v", edit)
	}
	if msg := r.refused(t, "compose_scenes", map[string]any{"job_id": "nope"}); !strings.Contains(msg, "job_id") {
		t.Errorf("compose of an unknown job: %s", msg)
	}
}

func writePNG(t testing.TB, path string, w, h int) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, h/2, color.RGBA{200, 40, 40, 255})
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func decode(t testing.TB, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A resource is a saved image within the size bound: a bigger file, or one
// whose bytes are no image, is refused saying why.
func TestResourcesAreBoundedImages(t *testing.T) {
	r := newRig(t, rigOpts{})
	dir := t.TempDir()
	img := filepath.Join(dir, "a.png")
	writePNG(t, img, 64, 64)
	if res, err := r.srv.fileContents("clapper://result/x/0", img); err != nil || res.Contents[0].MIMEType != "image/png" {
		t.Fatalf("a small image: %v", err)
	}
	small, err := New(r.st, Options{MaxResourceBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.fileContents("clapper://result/x/0", img); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("an image over the bound: %v", err)
	}
	fake := filepath.Join(dir, "b.png")
	os.WriteFile(fake, []byte("#!/bin/sh\necho not an image\n"), 0o600)
	if _, err := r.srv.fileContents("clapper://result/x/0", fake); err == nil || !strings.Contains(err.Error(), "not the image/png its name says") {
		t.Errorf("a file that is no image: %v", err)
	}
	if _, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "clapper://result/nope/0"}); err == nil {
		t.Errorf("a resource of an unknown task was read")
	}
}

// A scene edit is priced like a new scene of its length, so one that would
// take the day's agent work past the cap is refused though the day's
// spending alone is under it; a composition costs nothing and passes.
func TestSceneEditsCountAgainstTheAgentCap(t *testing.T) {
	r := newRig(t, rigOpts{cap: 101})
	var c created
	r.ok(t, "create_general_one_click", map[string]any{"images": []string{"https://example.com/a.png"}, "prompt": "a lighthouse keeper's day", "duration": 25}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	var job jobOut
	r.ok(t, "get_scenes", map[string]any{"job_id": c.TaskID}, &job)
	if done.State != api.StateSuccess || len(job.Scenes) == 0 {
		t.Fatalf("job: %+v %+v", done, job)
	}
	msg := r.refused(t, "edit_scene", map[string]any{"job_id": c.TaskID, "scene_job_id": job.Scenes[0].Versions[0].ID, "prompt": "at dawn"})
	if !strings.Contains(msg, "credit cap for agent work is 101 credits") || !strings.Contains(msg, "this request costs") {
		t.Errorf("edit past the agent cap: %s", msg)
	}
	var composed startedOut
	r.ok(t, "compose_scenes", map[string]any{"job_id": c.TaskID}, &composed)
}

// defaultSaid reports model m's default v said in the description's
// "default D (m1, m2: E; m3: F)": by an exception naming m or a glob of
// its family, or as D when no exception names it.
func defaultSaid(desc, m, v string) bool {
	sub := regexp.MustCompile(`default ([^ (.;]+) \(([^)]*)\)`).FindStringSubmatch(desc)
	if sub == nil {
		return false
	}
	for _, ex := range strings.Split(sub[2], "; ") {
		names, val, _ := strings.Cut(ex, ": ")
		for _, n := range strings.Split(names, ", ") {
			if fam, glob := strings.CutSuffix(n, "*"); n == m || glob && strings.HasPrefix(m, fam) {
				return val == v
			}
		}
	}
	return sub[1] == v
}
