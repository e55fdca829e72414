package media

import (
	"clapper/api/catalog"
	"math"
	"strings"
	"unicode"
)

// Speech timing in seconds at speed 1, tuned to sound like an unhurried
// reader (about 150 English words a minute).
const (
	wordBase     = 0.08
	perLetter    = 0.06
	maxLetters   = 20 // a URL or a number string should not drone on
	gapWord      = 0.08
	gapClause    = 0.25
	gapSentence  = 0.45
	gapParagraph = 0.7

	voiceHz   = 140.0
	tableSize = 1024
)

// vowels are rough (F1, F2) formant pairs of a, e, i, o, u: which harmonics
// of the voice are loud is what makes a tone sound like a vowel.
var vowels = [...][2]float64{{730, 1090}, {530, 1840}, {270, 2290}, {570, 840}, {300, 870}}

// spokenWord is one word of the text and the silence before it.
type spokenWord struct {
	letters int
	gap     float64 // natural silence at speed 1 (ignored before the first word)
	pause   float64 // silence from <#x#> markers; when set it replaces gap exactly
}

// SpeechWAV renders text as speech-like tones: each word a voiced burst of one
// syllable per three letters (a CJK character is one syllable), each syllable
// on a vowel-like timbre, the pitch gently falling across the word.
//
//   - speed in [0.5, 2] divides every duration except pause markers; values
//     out of range are clamped, and zero, negative or NaN mean 1.
//   - pitch shifts the 140 Hz voice by semitones, clamped to [-12, 12].
//   - volume 0 (normal) to 10 (loudest) sets the peak from 35% to 90% of full
//     scale, so no volume clips.
//   - words are 80 ms apart; 250 ms after a clause mark (, ; : and CJK
//     forms), 450 ms after a sentence end (. ! ? and CJK forms), 700 ms at a
//     newline; <#x#> is exactly x seconds of silence in place
//     of the natural gap at that point.
//
// It returns the WAV and its length in seconds.
func SpeechWAV(text string, speed float64, pitch int, volume int, seed int64) (wav []byte, seconds float64) {
	if !(speed > 0) {
		speed = 1
	}
	speed = min(max(speed, 0.5), 2)
	f0 := voiceHz * math.Exp2(float64(min(max(pitch, -12), 12))/12)
	amp := 0.35 + 0.055*float64(min(max(volume, 0), 10))
	tables := vowelTables(f0)
	r := rng(seed)

	// Lay the words out first so the samples are allocated once: a long text
	// is minutes of audio, and growing it by appending copies it many times.
	words := splitSpeech(text)
	type placed struct{ at, n, letters int }
	layout := make([]placed, len(words))
	total := 0
	for i, w := range words {
		silence := w.gap / speed
		switch {
		case w.pause > 0:
			silence = w.pause
		case i == 0:
			silence = 0
		}
		total += toSamples(silence)
		letters := min(w.letters, maxLetters)
		n := max(1, toSamples((wordBase+perLetter*float64(letters))/speed))
		layout[i] = placed{total, n, letters}
		total += n
	}
	out := make([]float64, total)
	for _, p := range layout {
		voiceWord(out[p.at:p.at+p.n], p.letters, f0, amp, tables, &r)
	}
	return encodeWAV(out), float64(len(out)) / sampleRate
}

// splitSpeech finds the words of text, the natural gap before each (the
// strongest punctuation since the previous word) and the pause markers, read
// by the catalog's parser so that speech follows the rule the service checks.
func splitSpeech(text string) []spokenWord {
	segs, err := catalog.SplitPauses(text, catalog.PausesTTS)
	if err != nil {
		// Requests are validated before they are spoken; should a misused
		// marker slip through, it is read as plain text rather than dropped.
		segs = []catalog.Segment{{Text: text}}
	}
	var words []spokenWord
	var letters int
	gap, pause := 0.0, 0.0
	flush := func() {
		if letters == 0 {
			return
		}
		words = append(words, spokenWord{letters: letters, gap: gap, pause: pause})
		letters, gap, pause = 0, gapWord, 0
	}
	for _, seg := range segs {
		for _, c := range seg.Text {
			switch {
			case unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
				flush()
				letters = 2 // one syllable
				flush()
			case unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsMark(c):
				letters++
			case c == '\'' || c == '’':
				// An apostrophe stays inside the word (don't, it's).
			default:
				flush()
				gap = max(gap, punctuationGap(c))
			}
		}
		flush()
		pause += seg.Pause
	}
	return words
}

func punctuationGap(c rune) float64 {
	switch {
	case c == '\n':
		return gapParagraph
	case strings.ContainsRune(".!?。！？…", c):
		return gapSentence
	case strings.ContainsRune(",;:，；：、", c):
		return gapClause
	}
	return gapWord
}

func toSamples(seconds float64) int { return int(math.Round(seconds * sampleRate)) }

// voiceWord fills dst with one word. Each syllable rises and falls in loudness
// (sin^0.5, zero at its edges so words start and end without clicks) and the
// pitch glides 10% down across the word, as a statement's does.
func voiceWord(dst []float64, letters int, f0, amp float64, tables [len(vowels)][]float64, r *rng) {
	n := len(dst)
	syllables := max(1, (letters+1)/3)
	wf := f0 * math.Exp2(r.between(-2, 2)/12)
	phase := 0.0
	for s := range syllables {
		table := tables[r.next()%uint64(len(vowels))]
		lo, hi := s*n/syllables, (s+1)*n/syllables
		for i := lo; i < hi; i++ {
			t := (float64(i-lo) + 0.5) / float64(hi-lo)
			env := math.Sqrt(math.Sin(math.Pi * t))
			f := wf * (1.05 - 0.1*float64(i)/float64(n))
			phase += f / sampleRate
			phase -= math.Floor(phase)
			pos := phase * tableSize
			j := int(pos)
			frac := pos - float64(j)
			dst[i] = amp * env * (table[j]*(1-frac) + table[(j+1)%tableSize]*frac)
		}
	}
}

// vowelTables holds one period of each vowel at voice frequency f0, peak 1.
// Linear interpolation between entries cannot exceed the peak, which is what
// lets volume promise never to clip.
func vowelTables(f0 float64) [len(vowels)][]float64 {
	sine := make([]float64, tableSize)
	for j := range sine {
		sine[j] = math.Sin(2 * math.Pi * float64(j) / tableSize)
	}
	var tables [len(vowels)][]float64
	harmonics := max(1, int(3500/f0))
	for v, formants := range vowels {
		amps := make([]float64, harmonics)
		for k := range amps {
			hz := float64(k+1) * f0
			near := func(centre, width float64) float64 { return math.Exp(-math.Pow((hz-centre)/width, 2)) }
			amps[k] = (0.3 + near(formants[0], 150) + 0.7*near(formants[1], 200)) / float64(k+1)
		}
		table := make([]float64, tableSize)
		peak := 0.0
		for j := range table {
			for k, a := range amps {
				table[j] += a * sine[(k+1)*j%tableSize]
			}
			peak = max(peak, math.Abs(table[j]))
		}
		for j := range table {
			table[j] /= peak
		}
		tables[v] = table
	}
	return tables
}
