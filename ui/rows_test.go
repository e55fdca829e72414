package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// rowsTasks are tasks with no prompt among tasks with one: music videos,
// clones and a template story, the rows that read alike without a subject.
func rowsTasks() []task {
	h := func(d time.Duration) time.Time { return testNow.Add(-d) }
	song := "data:audio/mpeg;base64,SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4Ljc2LjEwMAAAAAAAAAAAAAAA"
	return []task{
		{api.OpAudioClone, "", `{"audio_url":"https://x/anna.mp3","voice_id":"narrator_anna"}`, "811000000000000101", api.StateSuccess, 5, "", h(9 * time.Hour), 0},
		{api.OpAudioClone, "", `{"audio_url":"https://x/joe.mp3","voice_id":"grandpa_joe","text":"Hi, it is Joe."}`, "811000000000000102", api.StateSuccess, 5, "", h(8 * time.Hour), 0},
		{api.OpMV, "", `{"images":["https://x/a.png"],"audio_url":"https://x/songs/summer_rain.mp3"}`, "811000000000000103", api.StateSuccess, 30, "", h(7 * time.Hour), 1},
		{api.OpMV, "", `{"images":["https://x/a.png"],"audio_url":"` + song + `"}`, "811000000000000104", api.StateFailed, 0, "AudioTooShort", h(6 * time.Hour), 0},
		{api.OpPremiumMV, "", `{"premium_mv_mode":"sing","lip_ref_urls":["https://x/f.png"],"audio_url":"https://x/songs/ballad.mp3"}`, "811000000000000105", api.StateSuccess, 200, "", h(5 * time.Hour), 1},
		{api.OpPremiumMV, "", `{"premium_mv_mode":"dance","images":["https://x/1.png"],"audio_url":"https://x/songs/ballad.mp3"}`, "811000000000000106", api.StateProcessing, 200, "", h(4 * time.Hour), 0},
		{api.OpTemplateStory, "", `{"story":"love_story","images":["https://x/1.png"]}`, "811000000000000107", api.StateSuccess, 20, "", h(3 * time.Hour), 1},
		{api.OpTrendingReplicate, "", `{"video_url":"https://x/trend.mp4","prompt":"our red sneakers"}`, "811000000000000108", api.StateQueueing, 30, "", h(2 * time.Hour), 0},
		{api.OpStartEnd2Video, "svcq2-pro-fast", `{"model":"svcq2-pro-fast","prompt":"a door opens","images":["https://x/1.png","https://x/2.png"]}`, "811000000000000109", api.StateSuccess, 20, "", h(time.Hour), 1},
		{api.OpReference2Video, "svcq4-preview", `{"model":"svcq4-preview","prompt":"a dancer on a roof","images":["https://x/1.png"]}`, "811000000000000110", api.StateSuccess, 20, "", h(30 * time.Minute), 1},
	}
}

func newRowsModel(t *testing.T, w, h int) *Model {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, rowsTasks())
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	return m
}

// At 80 columns every row names its operation uncut, its model and a
// subject: rows with no prompt (clones, music videos) differ.
func TestTaskRowsSubjects(t *testing.T) {
	for _, size := range []struct {
		w, h       int
		clone, pmv string
	}{{80, 24, "clone", "pmv"}, {140, 40, "audio-clone", "premium_mv"}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m := newRowsModel(t, size.w, size.h)
			got := screen(m)
			for _, want := range []string{size.clone, "narrator_anna", "grandpa_joe", "summer_rain.mp3",
				size.pmv + " ", "sing · ballad.mp3", "dance · ballad.mp3", "love_story", "svcq2-pro-fast", "svcq4-preview", "trend"} {
				if !strings.Contains(got, want) {
					t.Errorf("%q missing from the list:\n%s", want, got)
				}
			}
			rows := map[string]bool{}
			for _, line := range strings.Split(got, "\n") {
				if strings.Contains(line, "…") && strings.Contains(line, "trending-replic") {
					t.Errorf("operation cut: %q", line)
				}
				if f := strings.Fields(line); len(f) > 3 && (f[1] == "mv" || f[1] == size.pmv || f[1] == size.clone) {
					key := strings.Join(f[:len(f)-2], " ")
					if rows[key] {
						t.Errorf("two rows read alike: %q", line)
					}
					rows[key] = true
				}
			}
			// The origin shows at both widths: an agent's task stands out.
			if !strings.Contains(got, "mcp") {
				t.Errorf("no origin on the list:\n%s", got)
			}
			snapshot(t, m)
		})
	}
}
