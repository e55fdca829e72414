package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func reason(err error) string {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// The three-step upload flow gives a URI that stands for the image in a
// creation until it expires; then the service refuses it.
func TestUploadFlowAndItsURI(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := context.Background()
	uri, err := h.client.Upload(ctx, pngBytes(t, 300, 200), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := catalog.UploadID(uri); !ok || !strings.HasPrefix(id, uploadIDPrefix) {
		t.Fatalf("uri %q", uri)
	}
	body := map[string]any{"model": "svcq2-pro", "images": []any{uri}, "prompt": "a cat walks"}
	if _, err := h.client.Create(ctx, api.OpImg2Video, body); err != nil {
		t.Fatalf("creation with the upload: %v", err)
	}
	h.advance(uploadLifetime + time.Second)
	_, err = h.client.Create(ctx, api.OpImg2Video, body)
	if reason(err) != api.ReasonImageDownloadFailure || !strings.Contains(err.Error(), "expired") {
		t.Errorf("an expired upload: %v", err)
	}
	unknown := map[string]any{"model": "svcq2-pro", "images": []any{catalog.UploadURI(uploadIDPrefix + "1")}}
	if _, err := h.client.Create(ctx, api.OpImg2Video, unknown); reason(err) != api.ReasonImageDownloadFailure {
		t.Errorf("an upload this sandbox never issued: %v", err)
	}
}

func TestUploadRefusesWhatIsNoImage(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := context.Background()
	if _, err := h.client.Upload(ctx, []byte("RIFF....WAVEfmt "), "image/png"); reason(err) != api.ReasonImageFormatInvalid {
		t.Errorf("audio uploaded as an image: %v", err)
	}
	if _, err := h.client.Upload(ctx, pngBytes(t, 1000, 200), "image/png"); reason(err) != api.ReasonImageFormatInvalid || !strings.Contains(err.Error(), "aspect ratio") {
		t.Errorf("a 5:1 image: %v", err)
	}
	status, _, raw := h.call(http.MethodPut, api.PathUploads+"/"+uploadIDPrefix+"9/finish", `{"etag":"x"}`, nil)
	if status != http.StatusNotFound || !strings.Contains(string(raw), "no such upload") {
		t.Errorf("finishing an unknown upload: %d %s", status, raw)
	}
}

func TestStoredSubjectsCreateListUpdateAndUse(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := context.Background()
	data := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes(t, 256, 256))
	sb, err := h.client.CreateSubject(ctx, map[string]any{"name": "mia", "images": []any{data}, "voice_id": "English_Graceful_Lady"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sb.ID, subjectIDPrefix) || len(sb.Images) != 1 || !strings.HasPrefix(sb.Images[0], catalog.UploadScheme) {
		t.Errorf("created %+v: want an id and the image kept as an upload", sb)
	}
	if _, err := h.client.CreateSubject(ctx, map[string]any{"images": []any{data}}); reason(err) != api.ReasonFieldLacking {
		t.Errorf("a subject without a name: %v", err)
	}
	up, err := h.client.UpdateSubject(ctx, sb.ID, map[string]any{"style": "watercolour", "images": []any{"https://e.com/a.png", "https://e.com/b.png"}})
	if err != nil || up.Name != "mia" || up.Style != "watercolour" || len(up.Images) != 2 {
		t.Errorf("updated %+v %v", up, err)
	}
	if _, err := h.client.UpdateSubject(ctx, subjectIDPrefix+"404", map[string]any{"name": "x"}); reason(err) != api.ReasonNotFound {
		t.Errorf("updating an unknown subject: %v", err)
	}
	page, err := h.client.ListSubjects(ctx, api.SubjectQuery{})
	if err != nil || page.Count != 1 || page.Subjects[0].ID != sb.ID {
		t.Errorf("list %+v %v", page, err)
	}
	sys, _ := h.client.ListSubjects(ctx, api.SubjectQuery{Ownership: "system"})
	if sys == nil || sys.Count == 0 {
		t.Errorf("system subjects: %+v", sys)
	}
	byID, _ := h.client.ListSubjects(ctx, api.SubjectQuery{IDs: []string{sb.ID, "nope"}})
	if byID == nil || byID.Count != 1 {
		t.Errorf("by id: %+v", byID)
	}
	if _, err := h.client.ListSubjects(ctx, api.SubjectQuery{Count: 101}); reason(err) != api.ReasonPageSizeOutOfRange {
		t.Errorf("count 101: %v", err)
	}
	use := func(id string) error {
		_, err := h.client.Create(ctx, api.OpReference2Video, map[string]any{"model": "svcq2", "prompt": "[@mia] dances",
			"subjects": []any{map[string]any{"name": "mia", "server_id": id}}})
		return err
	}
	if err := use(sb.ID); err != nil {
		t.Errorf("reference2video with the stored subject: %v", err)
	}
	if err := use(subjectIDPrefix + "404"); reason(err) != api.ReasonFieldInvalid || !strings.Contains(err.Error(), "no stored subject") {
		t.Errorf("an unknown stored subject: %v", err)
	}
}

func TestSubjectPagesFollowTheToken(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := h.client.CreateSubject(ctx, map[string]any{"name": n, "images": []any{"https://e.com/a.png"}}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	q := api.SubjectQuery{Count: 2}
	for {
		p, err := h.client.ListSubjects(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Subjects {
			names = append(names, s.Name)
		}
		if p.NextPageToken == "" {
			break
		}
		q.PageToken = p.NextPageToken
	}
	if strings.Join(names, "") != "abc" {
		t.Errorf("pages gave %v", names)
	}
}

func TestCreditsTellBalanceAndConcurrency(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1})
	ctx := context.Background()
	before, err := h.client.Credits(ctx)
	if err != nil || before.Remaining != accountCredits || !before.HasConcurrency || before.Limit != 1 {
		t.Fatalf("credits %+v %v", before, err)
	}
	for range 2 {
		h.createID(api.OpText2Video, map[string]any{"model": "svcq2", "prompt": "waves"})
	}
	h.advance(5 * time.Second)
	after, _ := h.client.Credits(ctx)
	if after.Remaining >= accountCredits || after.Running != 1 || after.Queued != 1 {
		t.Errorf("after two tasks on one slot: %+v", after)
	}
	status, _, raw := h.call(http.MethodGet, api.PathCredits+"?show_detail=true", nil, nil)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if status != 200 || len(m["packages"].([]any)) != 1 {
		t.Errorf("show_detail: %d %s", status, raw)
	}
	status, _, _ = h.call(http.MethodGet, api.PathCredits, nil, map[string]string{"Authorization": ""})
	if status != http.StatusUnauthorized {
		t.Errorf("no token: %d", status)
	}
}

// Subjects and uploads live in the state file: another process (or the
// next run) finds them.
func TestSubjectsAndUploadsOutliveTheProcess(t *testing.T) {
	path := t.TempDir() + "/state.json"
	clock := NewFakeClock(t0)
	first := newHarness(t, Config{StatePath: path, Clock: clock})
	ctx := context.Background()
	sb, err := first.client.CreateSubject(ctx, map[string]any{"name": "mia", "images": []any{"https://e.com/a.png"}})
	if err != nil {
		t.Fatal(err)
	}
	uri, err := first.client.Upload(ctx, pngBytes(t, 300, 200), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	second := newHarness(t, Config{StatePath: path, Clock: clock})
	page, err := second.client.ListSubjects(ctx, api.SubjectQuery{})
	if err != nil || page.Count != 1 || page.Subjects[0].ID != sb.ID {
		t.Errorf("the next process lists %+v %v", page, err)
	}
	if _, err := second.client.Create(ctx, api.OpImg2Video, map[string]any{"model": "svcq2-pro", "images": []any{uri}}); err != nil {
		t.Errorf("the next process refuses the upload: %v", err)
	}
}
