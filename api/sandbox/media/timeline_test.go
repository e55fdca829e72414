package media

import (
	"bytes"
	"clapper/api/catalog"
	"fmt"
	"math"
	"testing"
)

// boundary is the tolerance the placement check allows at each edge.
const boundary = 0.010

func TestTimelineWAVPlacement(t *testing.T) {
	tests := []struct {
		name     string
		duration float64
		events   []Event
		// audible is the union of the clamped event windows, sorted.
		audible [][2]float64
	}{
		{"one event", 10, []Event{{1, 2.5, "door slam"}}, [][2]float64{{1, 2.5}}},
		{"two apart", 10, []Event{{6.25, 7, "dog bark"}, {0.5, 1.25, "rain on a tin roof"}}, [][2]float64{{0.5, 1.25}, {6.25, 7}}},
		{"overlapping", 8, []Event{{1, 3, "wind"}, {2, 4, "thunder"}}, [][2]float64{{1, 4}}},
		{"from start to end", 2, []Event{{0, 2, "engine hum"}}, [][2]float64{{0, 2}}},
		{"clamped to duration", 5, []Event{{-1, 0.5, "bell"}, {4.5, 9, "bird song"}}, [][2]float64{{0, 0.5}, {4.5, 5}}},
		{"short blip", 3, []Event{{1.5, 1.52, "click"}}, [][2]float64{{1.5, 1.52}}},
		{"empty and reversed skipped", 4, []Event{{2, 2, "nothing"}, {3, 1, "backwards"}, {math.NaN(), 1, "nan"}}, nil},
		{"no events", 2.5, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := TimelineWAV(tt.duration, tt.events, 5)
			s := samples(t, b)
			if want := int(math.Round(tt.duration * sampleRate)); len(s) != want {
				t.Fatalf("%d samples, want %d", len(s), want)
			}
			if d, err := catalog.WAVDuration(b); err != nil || d != tt.duration {
				t.Fatalf("WAVDuration = %v, %v; want %v", d, err, tt.duration)
			}

			// Silence between (and around) the audible spans, up to 10 ms
			// from each edge.
			prev := 0.0
			for _, span := range append(tt.audible, [2]float64{tt.duration + boundary, 0}) {
				if lo, hi := prev+boundary, span[0]-boundary; hi > lo {
					if e := rms(s, lo, hi); e != 0 {
						t.Errorf("silence [%.3f, %.3f) has RMS %g", lo, hi, e)
					}
				}
				prev = span[1]
			}
			for _, span := range tt.audible {
				// Audible throughout, in 50 ms steps (or the whole of a
				// shorter span), right up to 10 ms from each edge.
				steps := int(math.Ceil((span[1]-span[0])/0.05 - 1e-9))
				for k := range steps {
					lo := span[0] + 0.05*float64(k)
					hi := min(lo+0.05, span[1])
					if e := rms(s, lo, hi); e < 0.01 {
						t.Errorf("[%.3f, %.3f) RMS %g, want audible", lo, hi, e)
					}
				}
				if e := rms(s, span[0]-boundary, span[0]); span[0] > 0 && e != 0 {
					t.Errorf("%.2f s before the start at %.3f: RMS %g", boundary, span[0], e)
				}
				if e := rms(s, span[1], span[1]+boundary); e != 0 {
					t.Errorf("%.2f s after the end at %.3f: RMS %g", boundary, span[1], e)
				}
			}
		})
	}
}

func TestTimelineWAVOverlapMixesWithoutWrapping(t *testing.T) {
	// Identical prompts sound in phase, the worst case for the sum.
	ev := Event{1, 2, "glass breaking"}
	single := samples(t, TimelineWAV(3, []Event{ev}, 1))
	for _, copies := range []int{2, 4, 16} {
		t.Run(fmt.Sprint(copies), func(t *testing.T) {
			events := make([]Event, copies)
			for i := range events {
				events[i] = ev
			}
			mixed := samples(t, TimelineWAV(3, events, 1))
			louder := 0
			for i, v := range single {
				m := mixed[i]
				if (v > 0 && m < v) || (v < 0 && m > v) {
					t.Fatalf("sample %d: single %d, mixed %d: the sum wrapped or cancelled", i, v, m)
				}
				if m != v {
					louder++
				}
			}
			if louder < sampleRate/2 {
				t.Errorf("only %d samples got louder", louder)
			}
		})
	}
}

func TestTimelineWAVSound(t *testing.T) {
	render := func(prompt string, seed int64) []byte {
		return TimelineWAV(2, []Event{{0.5, 1.5, prompt}}, seed)
	}
	if !bytes.Equal(render("rain", 1), render("rain", 1)) {
		t.Error("same input, different bytes")
	}
	distinct := map[string]bool{}
	for i := range 8 {
		distinct[string(render(fmt.Sprintf("prompt %d", i), 1))] = true
	}
	if len(distinct) < 8 {
		t.Errorf("8 prompts gave %d distinct sounds", len(distinct))
	}
	if got := len(TimelineWAV(-1, nil, 0)); got != 44 {
		t.Errorf("negative duration: %d bytes, want an empty WAV", got)
	}
}
