package catalog

import (
	"strings"
	"testing"

	"clapper/api"
)

func TestUploadURIsStandForImages(t *testing.T) {
	ok := map[string]any{"model": "svcq2-pro", "images": []any{UploadURI("abc 1")}, "prompt": "p"}
	if errs := Validate(api.OpImg2Video, ok); errs != nil {
		t.Errorf("an upload URI is an image: %v", errs)
	}
	if id, _ := UploadID(UploadURI("abc 1")); id != "abc 1" {
		t.Errorf("UploadID(UploadURI) = %q", id)
	}
	subj := map[string]any{"model": "svcq2", "prompt": "[@a] runs", "subjects": []any{map[string]any{"name": "a", "images": []any{"ssupload:?id=9"}}}}
	if errs := Validate(api.OpReference2Video, subj); errs != nil {
		t.Errorf("an upload URI in a subject: %v", errs)
	}
	for _, bad := range []struct {
		op   api.Operation
		body map[string]any
		want string
	}{
		{api.OpImg2Video, map[string]any{"model": "svcq2-pro", "images": []any{"ssupload:id=1"}}, "ssupload:?id=<id>"},
		{api.OpLipSync, map[string]any{"video_url": "ssupload:?id=1"}, "names an uploaded image"},
	} {
		errs := Validate(bad.op, bad.body)
		if errs == nil || !strings.Contains(errs.Error(), bad.want) {
			t.Errorf("%v: got %v, want %q", bad.body, errs, bad.want)
		}
	}
}

func TestRelabelGivesImagesTheirContentType(t *testing.T) {
	png := pngURI(t, 200, 200)
	mislabelled := "data:image/jpeg;base64," + strings.SplitN(png, ",", 2)[1]
	req := map[string]any{"model": "svcq2", "prompt": "[@a] and a cat", "images": nil,
		"subjects": []any{map[string]any{"name": "a", "images": []any{"https://e.com/x.png", mislabelled}}}}
	if errs := Validate(api.OpReference2Video, req); errs == nil {
		t.Fatal("a PNG declared as JPEG must be refused by the strict check")
	}
	fixed, changed := Relabel(api.OpReference2Video, req)
	if strings.Join(changed, ",") != "subjects[0].images[1]" {
		t.Errorf("relabelled %v", changed)
	}
	if errs := Validate(api.OpReference2Video, fixed); errs != nil {
		t.Errorf("after relabelling: %v", errs)
	}
	one := map[string]any{"model": "svcq3-pro", "images": mislabelled}
	fixed, changed = Relabel(api.OpImg2Video, one)
	if len(changed) != 1 || changed[0] != "images[0]" || !strings.HasPrefix(fixed["images"].([]any)[0].(string), "data:image/png;base64,") {
		t.Errorf("single image string: %v %v", changed, fixed["images"])
	}
	if _, changed := Relabel(api.OpImg2Video, map[string]any{"model": "svcq3-pro", "images": []any{png}}); changed != nil {
		t.Errorf("a well-labelled image was relabelled: %v", changed)
	}
}
