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
			"extend images[0]", "multiframe start_image", "template2video images"},
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
		{"a new subject", subj, []any{map[string]any{"name": "cat"}}, []any{map[string]any{"name": "cat"}, map[string]any{"images": []any{"new.png"}}}, "subjects[].images"},
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
	if slices.Contains(labels(Targets(OutputNone)), "img2video images[0]") {
		t.Error("nothing has no places")
	}
}
