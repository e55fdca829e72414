package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"clapper/api/catalog"
)

// decodeObject reads a JSON object keeping numbers as json.Number, as
// catalog.Validate expects; anything after the object is an error.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func pStr(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return s
}

// pNum reads a number however it arrived: json.Number from a request, a
// Go number from a catalog default.
func pNum(p map[string]any, k string) (float64, bool) {
	switch v := p[k].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

func pNumOr(p map[string]any, k string, def float64) float64 {
	if f, ok := pNum(p, k); ok {
		return f
	}
	return def
}

func pBool(p map[string]any, k string) bool {
	b, _ := p[k].(bool)
	return b
}

// pStrings reads a list of strings, also given as one string.
func pStrings(p map[string]any, k string) []string {
	switch v := p[k].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func number(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// compact copies params with every long data URI cut to its header: the
// state keeps what a result needs, not megabytes of input media.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = compact(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = compact(e)
		}
		return out
	case string:
		if head, _, ok := strings.Cut(x, ","); ok && strings.HasPrefix(x, "data:") && len(x) > 256 {
			return fmt.Sprintf("%s,…(%d characters)", head, len(x)-len(head)-1)
		}
	}
	return v
}

// firstImageRatio is the "W:H" of the first image of a request when it is
// a readable data URI; URLs are never fetched, so they tell nothing.
func firstImageRatio(p map[string]any) (string, bool) {
	imgs := pStrings(p, "images")
	if start := pStr(p, "start_image"); start != "" {
		imgs = []string{start} // multiframe: the video starts from it
	}
	if len(imgs) == 0 {
		return "", false
	}
	d, err := catalog.ParseDataURI(imgs[0])
	if err != nil {
		return "", false
	}
	info, err := catalog.InspectImage(d.Data)
	if err != nil || info.Width <= 0 || info.Height <= 0 {
		return "", false
	}
	g := gcd(info.Width, info.Height)
	return strconv.Itoa(info.Width/g) + ":" + strconv.Itoa(info.Height/g), true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// frameRatio is the shape of a task's results: the requested aspect ratio,
// else (auto or none asked) the first input image's, else 16:9.
func frameRatio(p map[string]any) string {
	if ar := pStr(p, "aspect_ratio"); ar != "" && !strings.EqualFold(ar, "auto") {
		if _, err := catalog.ParseRatio(ar); err == nil {
			return ar
		}
	}
	if r, ok := firstImageRatio(p); ok {
		if _, err := catalog.ParseRatio(r); err == nil {
			return r
		}
	}
	return "16:9"
}

// Song length assumed for a music video whose audio is a URL (never
// fetched) or a data URI whose length cannot be read.
const (
	defaultSongSeconds = 60
	minSongSeconds     = 10
	maxSongSeconds     = 300
	mp3BitsPerSecond   = 128000
)

// songSeconds is the length of a music video's audio: read from a WAV data
// URI, estimated at 128 kbit/s from other data URIs, assumed for URLs.
func songSeconds(p map[string]any) float64 {
	secs := float64(defaultSongSeconds)
	if d, err := catalog.ParseDataURI(pStr(p, "audio_url")); err == nil {
		if s, err := catalog.WAVDuration(d.Data); err == nil {
			secs = s
		} else {
			secs = float64(len(d.Data)*8) / mp3BitsPerSecond
		}
	}
	return math.Min(maxSongSeconds, math.Max(minSongSeconds, secs))
}

// stamp formats a time as the service does: UTC with nine fractional digits.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// splitmix is a fixed mixing function: ids must stay what they were for a
// given seed across Go releases.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// makeID is an 18-digit decimal id, like the service's, fixed by the seed,
// the sequence number and a salt.
func makeID(seed, seq int64, salt uint64) string {
	x := splitmix(uint64(seed) ^ splitmix(uint64(seq)<<8|salt))
	return strconv.FormatUint(x%900_000_000_000_000_000+100_000_000_000_000_000, 10)
}

// Salts of the derived ids; unit ids take salts from 0 up to this, in case
// two sequence numbers ever collide.
const creationSalt = 0xc0

func newTraceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
