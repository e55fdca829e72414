package catalog

import (
	"reflect"
	"slices"
	"testing"

	"clapper/api"
)

func labels(ts []Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.Operation)+" "+t.Label())
	}
	return out
}

// The places a result goes are the tables' fields of its kind: a named
// list item is a place of its own, a subject takes images and voices, the
// clone's own new voice id takes none, and a field only some models take
// names those models.
func TestTargetsFollowFieldKinds(t *testing.T) {
	want := map[Output][]string{
		OutputImage: {"reference2video images", "reference2video subjects[].images", "img2video images[0]", "start-end2video images[0]",
			"start-end2video images[1]", "reference2image images", "lip-sync ref_photo_url", "template-story images", "trending-replicate images",
			"mv images", "mv lip_ref_url", "premium_mv lip_ref_urls", "premium_mv images", "general_one_click images",
			"extend images[0]", "multiframe start_image", "multiframe image_settings[].key_image", "template2video images"},
		OutputVideo: {"reference2video videos", "lip-sync video_url", "trending-replicate video_url", "extend video_url", "upscale-new video_url"},
		OutputAudio: {"reference2video sounds", "audio-clone audio_url", "audio-clone prompt_audio_url", "lip-sync audio_url", "mv audio_url", "premium_mv audio_url"},
		OutputVoice: {"reference2video subjects[].voice_id", "img2video voice_id", "audio-tts voice_setting_voice_id", "lip-sync voice_id"},
	}
	for out, w := range want {
		if got := labels(Targets(out)); !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %q\nwant %q", out, got, w)
		}
	}
	last, ok := TargetFor(api.OpStartEnd2Video, "images[1]", OutputImage)
	if !ok || last.Name != "last frame" || last.Index != 1 {
		t.Errorf("start-end2video's last frame: %+v %v", last, ok)
	}
	videos, _ := TargetFor(api.OpReference2Video, "videos", OutputVideo)
	if !reflect.DeepEqual(videos.Models, []string{"svcq2-pro"}) {
		t.Errorf("reference videos are svcq2-pro's alone, got %v", videos.Models)
	}
	clip, _ := TargetFor(api.OpAudioClone, "audio_url", OutputAudio)
	if !clip.URLOnly {
		t.Error("audio-clone's audio_url takes a URL only")
	}
	if got := OutputOf(api.OpAudioClone); got != OutputVoice {
		t.Errorf("a clone gives %s", got)
	}
	if _, ok := TargetFor(api.OpAudioClone, "voice_id", OutputVoice); ok {
		t.Error("the clone's new voice id is no place for an existing voice")
	}
}

// Place puts a result where the target says, keeping what the field held;
// Holds finds it again, wherever it moved, and not once it is gone.
func TestTargetPlaceAndHolds(t *testing.T) {
	first, _ := TargetFor(api.OpStartEnd2Video, "images[0]", OutputImage)
	last, _ := TargetFor(api.OpStartEnd2Video, "images[1]", OutputImage)
	refs, _ := TargetFor(api.OpReference2Video, "images", OutputImage)
	subj, _ := TargetFor(api.OpReference2Video, "subjects[].images", OutputImage)
	voice, _ := TargetFor(api.OpReference2Video, "subjects[].voice_id", OutputVoice)
	frame, _ := TargetFor(api.OpMultiframe, "image_settings[].key_image", OutputImage)
	kf := func(img string) map[string]any { return map[string]any{"key_image": img, "duration": 3} }
	video, _ := TargetFor(api.OpLipSync, "video_url", OutputVideo)
	cases := []struct {
		name    string
		t       Target
		current any
		want    any
		label   string
	}{
		{"first frame over a first frame", first, []any{"a.png", "b.png"}, []any{"new.png", "b.png"}, "images[0]"},
		{"last frame after a first", last, []any{"a.png"}, []any{"a.png", "new.png"}, "images[1]"},
		{"last frame into an empty list lands first", last, nil, []any{"new.png"}, "images[0]"},
		{"a reference joins the list", refs, []any{"a.png"}, []any{"a.png", "new.png"}, "images"},
		{"a reference held already is not added twice", refs, []any{"new.png"}, []any{"new.png"}, "images"},
		{"a new subject", subj, []any{map[string]any{"name": "cat"}}, []any{map[string]any{"name": "cat"}, map[string]any{"images": []any{"new.png"}}}, "subjects[1].images"},
		{"a new subject's voice", voice, nil, []any{map[string]any{"voice_id": "new.png"}}, "subjects[0].voice_id"},
		{"a new key frame after the others", frame, []any{kf("a.png"), kf("b.png")}, []any{kf("a.png"), kf("b.png"), map[string]any{"key_image": "new.png"}}, "image_settings[2].key_image"},
		{"the first key frame", frame, nil, []any{map[string]any{"key_image": "new.png"}}, "image_settings[0].key_image"},
		{"one video", video, "old.mp4", "new.png", "video_url"},
	}
	for _, c := range cases {
		got, label := c.t.Place(c.current, "new.png")
		if !reflect.DeepEqual(got, c.want) || label != c.label {
			t.Errorf("%s: %v at %s, want %v at %s", c.name, got, label, c.want, c.label)
		}
		if at, ok := c.t.Holds(got, "new.png"); !ok || at != label {
			t.Errorf("%s: Holds says %q %v of what Place made", c.name, at, ok)
		}
		if _, ok := c.t.Holds(c.current, "other.png"); ok {
			t.Errorf("%s: Holds finds a value never placed", c.name)
		}
	}
	if at, ok := last.Holds([]any{"new.png", "a.png"}, "new.png"); !ok || at != "images[0]" {
		t.Errorf("a frame moved to first: %q %v", at, ok)
	}
	// A key frame and a subject are found where they moved to, and their
	// labels name their targets again (a chain's place in people's words).
	if at, ok := frame.Holds([]any{kf("a.png"), kf("new.png")}, "new.png"); !ok || at != "image_settings[1].key_image" {
		t.Errorf("a key frame moved up: %q %v", at, ok)
	}
	if _, ok := frame.Holds([]any{map[string]any{"key_image": []any{"new.png"}}}, "new.png"); ok {
		t.Error("a key frame's image is one string, not a list")
	}
	if _, ok := subj.Holds([]any{map[string]any{"images": "new.png"}}, "new.png"); ok {
		t.Error("a subject's images are a list")
	}
	for label, want := range map[string]bool{"image_settings[3].key_image": true, "image_settings[].key_image": true, "image_settings": true,
		"image_settings[x].key_image": false, "image_settings[-1].key_image": false, "image_settings[3].prompt": false, "image_settings[3]": false} {
		if got, ok := TargetFor(api.OpMultiframe, label, OutputImage); ok != want || (ok && got.Item != "key_image") {
			t.Errorf("TargetFor(multiframe, %s): %+v %v, want %v", label, got, ok, want)
		}
	}
	for label, want := range map[string]string{"image_settings[3].key_image": "key frame 4", "image_settings[].key_image": "a new key frame"} {
		if got, _ := TargetFor(api.OpMultiframe, label, OutputImage); got.Name != want {
			t.Errorf("%s is %q, want %q", label, got.Name, want)
		}
	}
	if got, ok := TargetFor(api.OpReference2Video, "subjects[1].images", OutputImage); !ok || got.Name != "subject 2's images" {
		t.Errorf("a subject's place by its index: %+v %v", got, ok)
	}
	if got, ok := TargetFor(api.OpReference2Video, "subjects[0].voice_id", OutputVoice); !ok || got.Name != "subject 1's voice" {
		t.Errorf("a subject's voice by its index: %+v %v", got, ok)
	}
	if slices.Contains(labels(Targets(OutputNone)), "img2video images[0]") {
		t.Error("nothing has no places")
	}
}
