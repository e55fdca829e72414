package catalog

import (
	"clapper/internal/textutil"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckVoiceID enforces the audio-clone voice_id syntax: 8-256 characters,
// a letter first, letters, digits, - and _ only, not ending in - or _.
func CheckVoiceID(id string) error {
	switch {
	case len(id) < 8 || len(id) > 256:
		return fmt.Errorf("must be 8 to 256 characters, got %d", utf8.RuneCountInString(id))
	case !voiceIDPattern.MatchString(id):
		return fmt.Errorf("must start with a letter, use only letters, digits, - and _, and not end in - or _ (got %q)", textutil.Clip(id, 40))
	}
	return nil
}

// checkVoiceRef accepts any identifier of an existing voice (system voices
// need not follow the clone syntax) but refuses what no id can be.
func checkVoiceRef(id string) error {
	if len(id) > 256 {
		return fmt.Errorf("at most 256 characters")
	}
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("must not contain spaces or control characters (got %q)", textutil.Clip(id, 40))
		}
	}
	return nil
}

// ParseRatio reads "W:H" with positive whole numbers within 1:4..4:1 and
// returns W/H.
func ParseRatio(s string) (float64, error) {
	w, h, ok := strings.Cut(s, ":")
	if !ok {
		return 0, fmt.Errorf("want W:H, got %q", s)
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || wi <= 0 || hi <= 0 {
		return 0, fmt.Errorf("want W:H with positive whole numbers, got %q", s)
	}
	r := float64(wi) / float64(hi)
	if r < 0.25 || r > 4 {
		return 0, fmt.Errorf("%q is outside 1:4 to 4:1", s)
	}
	return r, nil
}
