package studio_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// A set's versions sent onward are each tied to the task they came from.
func TestSetVersionsKeepTheirParent(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	image, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := studio.SeedVariations(api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []any{"https://x/l.png"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].Parents = []record.Parent{{LocalID: image.LocalID, Field: "images[0]"}}
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "two", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatal(err)
	}
	var members []record.SetMember
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if members, err = s.Record().SetMembers(ctx, id); err == nil && members[0].LocalID != 0 && members[1].LocalID != 0 {
			break
		}
	}
	for _, m := range members {
		got, err := s.Record().Task(ctx, m.LocalID)
		if err != nil || len(got.From) != 1 || got.From[0].LocalID != image.LocalID || got.From[0].Field != "images[0]" {
			t.Fatalf("line %d (#%d): from %+v, %v", m.Line, m.LocalID, got.From, err)
		}
	}
}

// A lip-sync made of one task's video and another's speech remembers both
// (one link per field); a request whose field holds a result's URL, typed
// or restored after a restart, is tied to that task with no pick at all;
// a URL no task made ties nothing.
func TestARequestHoldsSeveralParentsFoundByTheirURLs(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	video, err := s.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": "a face talking"})
	if err != nil {
		t.Fatal(err)
	}
	speech, err := s.Submit(ctx, api.OpAudioTTS, map[string]any{"text": "hello there", "voice_setting_voice_id": "English_Graceful_Lady"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	urlOf := func(localID int64) string {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if t, err := s.Record().Task(ctx, localID); err == nil && t.State == api.StateSuccess && len(t.Creations) > 0 {
				return t.Creations[0].URL
			}
		}
		t.Fatalf("task #%d never succeeded", localID)
		return ""
	}
	videoURL, speechURL := urlOf(video.LocalID), urlOf(speech.LocalID)
	// The video picked onward; the speech's URL only typed in.
	sync, err := s.SubmitFrom(ctx, api.OpLipSync, map[string]any{"video_url": videoURL, "audio_url": speechURL},
		[]record.Parent{{LocalID: video.LocalID, Field: "video_url"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Record().Task(ctx, sync.LocalID)
	if err != nil || len(got.From) != 2 {
		t.Fatalf("from %+v, %v; want the video and the speech", got.From, err)
	}
	fields := map[string]int64{}
	for _, l := range got.From {
		fields[l.Field] = l.LocalID
	}
	if fields["video_url"] != video.LocalID || fields["audio_url"] != speech.LocalID {
		t.Errorf("links %v; want video_url from #%d, audio_url from #%d", fields, video.LocalID, speech.LocalID)
	}
	from, _ := studio.Chain(got)
	if len(from) != 2 {
		t.Errorf("the chain names %d sources", len(from))
	}
	other, err := s.SubmitFrom(ctx, api.OpLipSync, map[string]any{"video_url": "https://elsewhere.example/v.mp4", "text": "hi there"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Record().Task(ctx, other.LocalID); len(got.From) != 0 {
		t.Errorf("a URL no task made is tied to %+v", got.From)
	}
}

// A multiframe whose start image and key frames hold images made here, typed
// or restored, is tied to each: one link per key frame, named by its place.
func TestKeyFramesAreTiedToTheImagesTheyHold(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, prompt := range []string{"a fox sits", "a fox leaps"} {
		sub, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": prompt})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sub.LocalID)
	}
	clk.Advance(time.Hour)
	urls := map[int64]string{}
	for deadline := time.Now().Add(10 * time.Second); len(urls) < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, id := range ids {
			if got, err := s.Record().Task(ctx, id); err == nil && got.State == api.StateSuccess && len(got.Creations) > 0 {
				urls[id] = got.Creations[0].URL
			}
		}
	}
	if len(urls) < 2 {
		t.Fatalf("the images never succeeded: %v", urls)
	}
	frames := []any{map[string]any{"key_image": urls[ids[0]], "duration": 3}, map[string]any{"key_image": urls[ids[1]], "prompt": "it leaps"}}
	sub, err := s.SubmitFrom(ctx, api.OpMultiframe, map[string]any{"model": "svcq2-pro", "start_image": urls[ids[0]], "image_settings": frames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Record().Task(ctx, sub.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := studio.Chain(got)
	places := map[string]string{}
	for _, l := range from {
		places[l.Field] = fmt.Sprintf("#%d %s", l.LocalID, l.Place)
	}
	want := map[string]string{
		"start_image":                 fmt.Sprintf("#%d the first frame", ids[0]),
		"image_settings[0].key_image": fmt.Sprintf("#%d key frame 1", ids[0]),
		"image_settings[1].key_image": fmt.Sprintf("#%d key frame 2", ids[1]),
	}
	if !reflect.DeepEqual(places, want) {
		t.Errorf("the multiframe is tied to %v, want %v", places, want)
	}
}
