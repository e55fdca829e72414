package forms

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// sevenSubjects is the largest form there is: reference2video with seven
// subjects of three images each, a voice and a server id.
func sevenSubjects() map[string]any {
	var subjects []any
	for i := range 7 {
		subjects = append(subjects, map[string]any{
			"name":      fmt.Sprintf("hero%d", i),
			"images":    []any{"https://example.com/a.png", "https://example.com/b.png", "https://example.com/c.png"},
			"voice_id":  "narrator_01",
			"server_id": fmt.Sprintf("srv-%d", i),
		})
	}
	return map[string]any{"model": "svcq3", "subjects": subjects,
		"prompt": "[@hero0] meets [@hero1] and [@hero2] on a bridge at dawn; [@hero3] watches"}
}

// Opening the largest form: build, fill, lay out and draw it (the check
// runs in the background and is not part of the frame).
func BenchmarkFormOpenLargest(b *testing.B) {
	ctx := &Context{Dir: b.TempDir(), Voices: []string{"narrator_01"}}
	styles := testStyles()
	values := sevenSubjects()
	for b.Loop() {
		f, err := New(ctx, styles, api.OpReference2Video, "svcq3")
		if err != nil {
			b.Fatal(err)
		}
		f.SetSize(140, 40)
		f.Apply(values)
		_ = f.View()
	}
}

// One keypress into the prompt of the largest form, and the frame after it.
func BenchmarkFormKeypressLargest(b *testing.B) {
	ctx := &Context{Dir: b.TempDir(), Voices: []string{"narrator_01"}}
	f, _ := New(ctx, testStyles(), api.OpReference2Video, "svcq3")
	f.SetSize(140, 40)
	f.Apply(sevenSubjects())
	f.Update(f.checkCmd()())
	for f.focusedName() != "prompt" {
		f.Update(keyPress("tab"))
	}
	f.View()
	keys := []tea.KeyPressMsg{keyPress("x"), keyPress("backspace")}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		f.Update(keys[i%2])
		_ = f.View()
	}
}

// The check a keypress starts (in the background): validation of the
// largest form without local files.
func BenchmarkFormCheckLargest(b *testing.B) {
	ctx := &Context{Dir: b.TempDir(), Voices: []string{"narrator_01"}}
	f, _ := New(ctx, testStyles(), api.OpReference2Video, "svcq3")
	f.Apply(sevenSubjects())
	for b.Loop() {
		_ = f.checkCmd()()
	}
}
