package media

import (
	"bytes"
	"clapper/api/catalog"
	"math"
	"testing"
)

const sentence = "The quick brown fox jumps over the lazy dog. It was not amused, not at all!\nThe end."

// silentRuns returns the lengths in seconds of the runs of zero samples
// longer than minRun seconds, in order.
func silentRuns(s []int16, minRun float64) []float64 {
	var runs []float64
	n := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] == 0 {
			n++
			continue
		}
		if d := float64(n) / sampleRate; d > minRun {
			runs = append(runs, d)
		}
		n = 0
	}
	return runs
}

func longest(runs []float64) float64 {
	m := 0.0
	for _, r := range runs {
		m = max(m, r)
	}
	return m
}

func TestSpeechPauseMarker(t *testing.T) {
	tests := []struct {
		text  string
		speed float64
		want  float64
	}{
		{"Hello there.<#2#>How are you today", 1, 2},
		{"Hello there <#2#> how are you", 2, 2}, // markers ignore speed
		{"one, two<#1.5#>three", 0.5, 1.5},
		{"first\n<#0.6#>\nsecond", 1, 0.6}, // replaces the paragraph gap
		{"wait for it<#12.25#>now", 1, 12.25},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			wav, _ := SpeechWAV(tt.text, tt.speed, 0, 0, 1)
			runs := silentRuns(samples(t, wav), 0.03)
			if got := longest(runs); math.Abs(got-tt.want) > 0.020 {
				t.Errorf("longest silence %.3f s, want %.3f +- 0.020 (runs %v)", got, tt.want, runs)
			}
		})
	}
}

func TestSpeechWordsAndGaps(t *testing.T) {
	tests := []struct {
		text     string
		words    int
		longGaps int // silences of at least 0.2 s: punctuation and newlines
	}{
		{"one two three", 3, 0},
		{"don't stop", 2, 0},
		{"Wait, what? Yes.", 3, 2},
		{"line one\nline two", 4, 1},
		{"你好，世界", 4, 1},
		{"  ...  hello  ", 1, 0}, // no silence before the first word or after the last
		{"", 0, 0},
		{"!?", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			wav, secs := SpeechWAV(tt.text, 1, 0, 0, 3)
			s := samples(t, wav)
			runs := silentRuns(s, 0.03)
			bursts := 0
			if len(s) > 0 {
				bursts = len(runs) + 1
			}
			if bursts != tt.words {
				t.Errorf("%d voiced bursts, want %d (silences %v)", bursts, tt.words, runs)
			}
			long := 0
			for _, r := range runs {
				if r >= 0.2 {
					long++
				}
			}
			if long != tt.longGaps {
				t.Errorf("%d long gaps, want %d (silences %v)", long, tt.longGaps, runs)
			}
			// Words fade in and out: a burst starting or ending at full
			// level would click.
			for i := 1; i < len(s); i++ {
				if (s[i-1] == 0) != (s[i] == 0) && max(abs(s[i-1]), abs(s[i])) > 1000 {
					t.Fatalf("sample %d jumps %d -> %d at a word edge", i, s[i-1], s[i])
				}
			}
			if d, err := catalog.WAVDuration(wav); err != nil || math.Abs(d-secs) > 1e-9 {
				t.Errorf("reported %v s, WAVDuration %v (%v)", secs, d, err)
			}
		})
	}
}

func TestSpeechSpeed(t *testing.T) {
	_, normal := SpeechWAV(sentence, 1, 0, 0, 1)
	tests := []struct {
		speed, ratio float64
	}{
		{2, 0.5},
		{0.5, 2},
		{1.25, 0.8},
		{7, 0.5}, // clamped to 2
		{0, 1},   // unset
		{-3, 1},  // nonsense means unset
		{0.1, 2}, // clamped to 0.5
		{1.0, 1},
	}
	for _, tt := range tests {
		_, got := SpeechWAV(sentence, tt.speed, 0, 0, 1)
		if r := got / normal; math.Abs(r-tt.ratio) > 0.02*tt.ratio {
			t.Errorf("speed %v: %.3f s is %.3f of speed 1 (%.3f s), want %.2f", tt.speed, got, r, normal, tt.ratio)
		}
	}
}

func abs(v int16) int { return int(math.Abs(float64(v))) }

func peak(s []int16) int {
	m := 0
	for _, v := range s {
		m = max(m, abs(v))
	}
	return m
}

func TestSpeechVolume(t *testing.T) {
	level := func(volume int) float64 {
		wav, _ := SpeechWAV(sentence, 1, 0, volume, 1)
		return float64(peak(samples(t, wav))) / math.MaxInt16
	}
	quiet, loud := level(0), level(10)
	if quiet < 0.25 || quiet > 0.4 {
		t.Errorf("volume 0 peaks at %.2f of full scale, want about 0.35", quiet)
	}
	if loud < 0.8 || loud > 0.95 {
		t.Errorf("volume 10 peaks at %.2f of full scale, want about 0.9 and no clipping", loud)
	}
	if mid := level(5); mid <= quiet || mid >= loud {
		t.Errorf("volume 5 peak %.2f not between %.2f and %.2f", mid, quiet, loud)
	}
	if level(99) != loud || level(-4) != quiet {
		t.Error("volume not clamped to 0..10")
	}
}

// fundamental estimates the pitch of s by autocorrelation: the first lag whose
// correlation comes near the best, which avoids picking a multiple of the
// period.
func fundamental(s []int16) float64 {
	minLag, maxLag := sampleRate/1000, sampleRate/50
	corr := make([]float64, maxLag+1)
	best := 0.0
	for lag := minLag; lag <= maxLag; lag++ {
		for i := 0; i+lag < len(s); i++ {
			corr[lag] += float64(s[i]) * float64(s[i+lag])
		}
		best = max(best, corr[lag])
	}
	for lag := minLag; lag <= maxLag; lag++ {
		if corr[lag] >= 0.9*best && (lag == maxLag || corr[lag] >= corr[lag+1]) {
			return sampleRate / float64(lag)
		}
	}
	return 0
}

func TestSpeechPitch(t *testing.T) {
	// The middle 60 ms of a single long syllable: steady enough to measure.
	pitchOf := func(pitch int) float64 {
		wav, secs := SpeechWAV("aaa", 1, pitch, 0, 1)
		s := samples(t, wav)
		mid := int(secs / 2 * sampleRate)
		return fundamental(s[mid-480 : mid+480])
	}
	base := pitchOf(0)
	if base < 120 || base > 170 {
		t.Fatalf("pitch 0 measures %.1f Hz, want about 140", base)
	}
	tests := []struct {
		pitch int
		ratio float64
	}{
		{12, 2},
		{-12, 0.5},
		{7, math.Exp2(7.0 / 12)},
		{30, 2}, // clamped
	}
	for _, tt := range tests {
		if r := pitchOf(tt.pitch) / base; math.Abs(r-tt.ratio) > 0.05*tt.ratio {
			t.Errorf("pitch %d: %.3f times the base, want %.3f", tt.pitch, r, tt.ratio)
		}
	}
}

func TestSpeechDeterministic(t *testing.T) {
	a, _ := SpeechWAV(sentence, 1, 2, 3, 9)
	b, _ := SpeechWAV(sentence, 1, 2, 3, 9)
	c, _ := SpeechWAV(sentence, 1, 2, 3, 10)
	if !bytes.Equal(a, b) {
		t.Error("same input, different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("seed changes nothing")
	}
}
