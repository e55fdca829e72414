package media

import (
	"hash/fnv"
	"math"
)

// Event is one timed sound: audible in [From, To) seconds.
type Event struct {
	From, To float64
	Prompt   string
}

const (
	// fadeSamples (5 ms) removes the click of a sound starting at full level.
	fadeSamples = sampleRate * 5 / 1000
	// eventPeak leaves room for two overlapping events before tanh bends
	// the sum noticeably.
	eventPeak = 0.5
)

// TimelineWAV renders duration seconds of audio in which each event sounds
// exactly over its window, clamped to [0, duration], and everything else is
// digital silence. Events with To <= From, or non-finite bounds that leave no
// window, are skipped; a non-positive or infinite duration gives an empty WAV.
func TimelineWAV(duration float64, events []Event, seed int64) []byte {
	if !(duration > 0) || math.IsInf(duration, 1) {
		duration = 0
	}
	mix := make([]float64, int(math.Round(duration*sampleRate)))
	at := func(t float64) int {
		return min(len(mix), int(math.Round(min(max(t, 0), duration)*sampleRate)))
	}
	for _, ev := range events {
		if !(ev.From < ev.To) {
			continue
		}
		start, end := at(ev.From), at(ev.To)
		for i, s := range eventSound(ev.Prompt, seed, end-start) {
			mix[start+i] += s
		}
	}
	for i, s := range mix {
		mix[i] = math.Tanh(s)
	}
	return encodeWAV(mix)
}

// eventSound returns n samples of the prompt's sound at eventPeak, faded at
// both ends. Every sample's gain is above zero, so the sound fills its whole
// window.
func eventSound(prompt string, seed int64, n int) []float64 {
	out := make([]float64, n)
	h := fnv.New64a()
	h.Write([]byte(prompt))
	sum := h.Sum64()
	r := rng(sum)
	if r.next()&1 == 0 {
		harmonicTone(out, &r)
	} else {
		bandNoise(out, &r, rng(sum^uint64(seed)))
	}

	// Tremolo never dips below 40%, so the sound stays audible throughout.
	rate, depth := r.between(0.5, 8), r.between(0, 0.6)
	peak := 0.0
	for i := range out {
		t := float64(i) / sampleRate
		out[i] *= 1 - depth*(0.5+0.5*math.Sin(2*math.Pi*rate*t))
		peak = max(peak, math.Abs(out[i]))
	}
	if peak == 0 {
		return out
	}
	for i := range out {
		fade := min(1, float64(i+1)/fadeSamples, float64(n-i)/fadeSamples)
		out[i] *= eventPeak / peak * fade
	}
	return out
}

// harmonicTone fills out with a 110-880 Hz tone of one to five harmonics.
// The random start phase keeps even a one-sample event from being a zero.
func harmonicTone(out []float64, r *rng) {
	f0 := 110 * math.Exp2(3*r.float())
	amps := make([]float64, 1+r.next()%5)
	rolloff := r.between(0.8, 2)
	for k := range amps {
		amps[k] = math.Pow(float64(k+1), -rolloff)
	}
	phase := r.between(0, 2*math.Pi)
	for i := range out {
		theta := 2*math.Pi*f0*float64(i)/sampleRate + phase
		for k, a := range amps {
			out[i] += a * math.Sin(float64(k+1)*theta)
		}
	}
}

// bandNoise fills out with white noise through a band-pass filter centred on
// 300-4000 Hz (the RBJ cookbook biquad, 0 dB peak gain).
func bandNoise(out []float64, r *rng, noise rng) {
	centre := 300 * math.Pow(4000.0/300, r.float())
	q := r.between(0.7, 5)
	w0 := 2 * math.Pi * centre / sampleRate
	alpha := math.Sin(w0) / (2 * q)
	a0 := 1 + alpha
	b0, b2 := alpha/a0, -alpha/a0
	a1, a2 := -2*math.Cos(w0)/a0, (1-alpha)/a0
	var x1, x2, y1, y2 float64
	for i := range out {
		x := 2*noise.float() - 1
		y := b0*x + b2*x2 - a1*y1 - a2*y2
		x2, x1 = x1, x
		y2, y1 = y1, y
		out[i] = y
	}
}
