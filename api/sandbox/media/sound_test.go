package media

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// What a client hears in the sandbox's audio, read from the WAV bytes: the
// header, the exact length, each event's level and fades, a word's length
// and syllables, and the samples of a few fixed inputs.

func TestWAVHeaderRates(t *testing.T) {
	for _, b := range [][]byte{TimelineWAV(1.5, []Event{{0.2, 0.9, "wind"}}, 1), func() []byte { w, _ := SpeechWAV("hello", 1, 0, 0, 1); return w }()} {
		le := binary.LittleEndian
		if rate, byteRate, align := le.Uint32(b[24:]), le.Uint32(b[28:]), le.Uint16(b[32:]); rate != 16000 || byteRate != 32000 || align != 2 {
			t.Errorf("%d Hz, %d bytes a second, %d a block; want 16000, 32000 and 2 (16-bit mono)", rate, byteRate, align)
		}
	}
	if got := len(TimelineWAV(1.5, nil, 1)); got != 44+2*24000 {
		t.Errorf("1.5 s of silence is %d bytes, want %d", got, 44+2*24000)
	}
}

// eventPeakLevel is an event's peak after the mix's tanh, in 16-bit units.
var eventPeakLevel = math.Round(math.Tanh(eventPeak) * math.MaxInt16)

func TestTimelineEventLevelAndFades(t *testing.T) {
	const from, to = 0.5, 1.5
	for i := range 12 {
		prompt := fmt.Sprintf("sound %d", i)
		s := samples(t, TimelineWAV(2, []Event{{from, to, prompt}}, 3))
		start, end := int(from*sampleRate), int(to*sampleRate)
		p := 0.0
		for _, v := range s {
			p = max(p, math.Abs(float64(v)))
		}
		// Every sound is brought to the same peak, half of full scale
		// before the mix's tanh.
		if math.Abs(p-eventPeakLevel) > 1 {
			t.Errorf("%q peaks at %.0f, want %.0f", prompt, p, eventPeakLevel)
		}
		// The sound starts at its first sample: the fade in begins at
		// 1/80 of the level, not at nothing.
		if s[start] == 0 || s[start+1] == 0 || s[start+2] == 0 {
			t.Errorf("%q starts with %v: silent samples inside the event", prompt, s[start:start+3])
		}
		// 5 ms fades: no sample louder than the fade allows at its place.
		for k := range fadeSamples {
			limit := math.Tanh(eventPeak*float64(k+1)/fadeSamples)*math.MaxInt16 + 1
			if a := math.Abs(float64(s[start+k])); a > limit {
				t.Errorf("%q: sample %d of the fade in is %.0f, above %.0f", prompt, k, a, limit)
				break
			}
			if a := math.Abs(float64(s[end-1-k])); a > limit {
				t.Errorf("%q: sample %d before the end is %.0f, above %.0f", prompt, k, a, limit)
				break
			}
		}
	}
}

func TestTimelineOneSampleEvent(t *testing.T) {
	// The shortest event is one sample, and it is not silent.
	for i := range 8 {
		prompt := fmt.Sprintf("tick %d", i)
		s := samples(t, TimelineWAV(0.01, []Event{{0.005, 0.005 + 1.0/sampleRate, prompt}}, 1))
		for k, v := range s {
			if (v != 0) != (k == 80) {
				t.Errorf("%q: sample %d is %d; want sound at 80 only", prompt, k, v)
			}
		}
	}
}

// The sound of a prompt does not change between releases (the rng's comment):
// a few samples of each, as this package made them when the test was written,
// to within floating point that another architecture may fuse.
func TestTimelineSoundIsStable(t *testing.T) {
	prompts := []string{"rain", "door slam", "dog bark", "glass breaking", "wind", "bell"}
	events := make([]Event, len(prompts))
	for i, p := range prompts {
		events[i] = Event{float64(i), float64(i) + 0.75, p}
	}
	s := samples(t, TimelineWAV(float64(len(prompts)), events, 11))
	var got []int16
	for i := range prompts {
		for _, at := range []float64{0.003, 0.1, 0.2345, 0.4, 0.6, 0.7477} {
			got = append(got, s[int((float64(i)+at)*sampleRate)])
		}
	}
	want := timelineFingerprint
	if testing.Verbose() {
		fmt.Printf("timeline: %#v\n", got)
	}
	for k := range want {
		if d := int(got[k]) - int(want[k]); d < -3 || d > 3 {
			t.Errorf("%q at point %d: sample %d, want %d", prompts[k/6], k%6, got[k], want[k])
		}
	}
}

var timelineFingerprint = []int16{
	-133, -5017, 6061, -2252, -7753, 4387,
	634, 3657, -3101, -4962, -1559, -604,
	4021, 8115, -14328, -2479, 8756, 2181,
	2122, 3154, -5757, -1551, 6257, 2076,
	2739, 549, -1782, 1323, -4394, -2225,
	1485, 5076, 8, 1851, -8097, 847,
}

func TestSpeechIsStable(t *testing.T) {
	wav, _ := SpeechWAV(sentence, 1, 0, 0, 4)
	s := samples(t, wav)
	var got []int16
	for k := range 48 {
		got = append(got, s[k*len(s)/48+37])
	}
	if testing.Verbose() {
		fmt.Printf("speech: %#v\n", got)
	}
	for k, want := range speechFingerprint {
		if d := int(got[k]) - int(want); d < -3 || d > 3 {
			t.Errorf("point %d: sample %d, want %d", k, got[k], want)
		}
	}
}

var speechFingerprint = []int16{
	22, -9226, 0, -8637, -1106, 344, -6452, -1218,
	-128, -23, 295, 1094, -7267, -5385, -1233, 0,
	-1403, 0, 10487, -509, -2227, -1284, 0, 0,
	0, -5064, -223, -4939, 0, 2194, 0, -3476,
	3622, 0, 0, -6010, -80, 99, 0, 2,
	0, 0, 0, 0, 0, -64, 0, -1641,
}

func TestSpeechWordLength(t *testing.T) {
	// A word lasts 80 ms and 60 ms a letter (up to 20 letters), words are
	// 80 ms apart, and speed divides both.
	tests := []struct {
		text    string
		speed   float64
		seconds float64
	}{
		{"a", 1, 0.14},
		{"hello", 1, 0.38},
		{"hello world", 1, 0.38 + 0.08 + 0.38},
		{"hello world", 2, (0.38 + 0.08 + 0.38) / 2},
		{strings.Repeat("x", 25), 1, 0.08 + 20*0.06},
	}
	for _, tt := range tests {
		wav, secs := SpeechWAV(tt.text, tt.speed, 0, 0, 1)
		n := int(math.Round(tt.seconds * sampleRate))
		if len(wav) != 44+2*n || secs != float64(n)/sampleRate {
			t.Errorf("%q at speed %v: %d bytes, %v s; want %d bytes, %v s", tt.text, tt.speed, len(wav), secs, 44+2*n, tt.seconds)
		}
	}
}

// syllables counts the loud stretches of s: each syllable swells and fades
// to near silence at its edges.
func syllables(s []int16) int {
	// The level over about a period of the voice (128 samples, 8 ms),
	// every millisecond.
	const win, step = 128, 16
	var level []float64
	top := 0.0
	for i := 0; i+win <= len(s); i += step {
		sum := 0.0
		for _, v := range s[i : i+win] {
			sum += float64(v) * float64(v)
		}
		l := math.Sqrt(sum / win)
		level = append(level, l)
		top = max(top, l)
	}
	n, loud := 0, false
	for _, l := range level {
		switch {
		case !loud && l > top/2:
			n++
			loud = true
		case loud && l < top*3/10:
			loud = false
		}
	}
	return n
}

func TestSpeechSyllables(t *testing.T) {
	// One syllable per three letters, rounded, at least one.
	for _, tt := range []struct {
		word string
		want int
	}{{"a", 1}, {"ab", 1}, {"hello", 2}, {"strength", 3}, {"abcdefghijk", 4}, {strings.Repeat("b", 20), 7}} {
		wav, _ := SpeechWAV(tt.word, 1, 0, 0, 2)
		if got := syllables(samples(t, wav)); got != tt.want {
			t.Errorf("%q: %d syllables, want %d", tt.word, got, tt.want)
		}
	}
}

func TestSpeechPitchFallsAcrossAWord(t *testing.T) {
	// A one-syllable word glides 10% down: its last part is lower than its
	// first.
	wav, secs := SpeechWAV("aaaa", 1, 0, 0, 1)
	s := samples(t, wav)
	n := int(secs * sampleRate)
	early := fundamental(s[n/5 : n/5+960])
	late := fundamental(s[n*4/5-960 : n*4/5])
	if r := late / early; r < 0.88 || r > 0.97 {
		t.Errorf("pitch %.1f Hz early, %.1f Hz late (%.3f), want a fall of about 6%%", early, late, r)
	}
}

// TestTimelineSoundKinds reads the doc's two kinds of sound: a harmonic tone
// (periodic, its fundamental 110-880 Hz) or band-passed noise (not periodic,
// centred on 300-4000 Hz, which its rate of zero crossings shows: about twice
// the centre).
func TestTimelineSoundKinds(t *testing.T) {
	tones, noises := 0, 0
	for i := range 24 {
		prompt := fmt.Sprintf("sound %d", i)
		s := samples(t, TimelineWAV(1, []Event{{0, 1, prompt}}, 3))[4000:8000]
		energy := 0.0
		for _, v := range s {
			energy += float64(v) * float64(v)
		}
		// The normalised autocorrelation over the lags of 110-880 Hz.
		corr := map[int]float64{}
		best := 0.0
		for lag := sampleRate / 880; lag <= sampleRate/110+1; lag++ {
			c := 0.0
			for k := 0; k+lag < len(s); k++ {
				c += float64(s[k]) * float64(s[k+lag])
			}
			corr[lag] = c / energy
			best = max(best, corr[lag])
		}
		switch {
		case best > 0.9:
			tones++
			if f := fundamental(s); f < 105 || f > 900 {
				t.Errorf("%q is a tone of %.0f Hz, want 110 to 880", prompt, f)
			}
		case best < 0.5:
			noises++
			crossings := 0
			for k := 1; k < len(s); k++ {
				if (s[k-1] < 0) != (s[k] < 0) {
					crossings++
				}
			}
			if rate := float64(crossings) / (float64(len(s)) / sampleRate); rate < 400 || rate > 9000 {
				t.Errorf("%q is noise crossing zero %.0f times a second, want a centre of 300-4000 Hz", prompt, rate)
			}
		default:
			t.Errorf("%q: autocorrelation peaks at %.2f, neither a tone nor noise", prompt, best)
		}
	}
	if tones < 4 || noises < 4 {
		t.Errorf("24 prompts gave %d tones and %d noises, want both kinds", tones, noises)
	}
}
