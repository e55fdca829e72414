package catalog

import (
	"clapper/internal/textutil"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Segment is a run of text followed by a pause (zero for the last one).
type Segment struct {
	Text  string
	Pause float64 // seconds
}

var (
	// Anything between <# and #> is a marker, so a malformed one is
	// reported instead of being read aloud.
	ttsMarker = regexp.MustCompile(`<#(.*?)#>`)
	// Lip-sync markers are #x#; a lone # stays text ("#1 fan").
	lipMarker   = regexp.MustCompile(`#([0-9][0-9.]*)#`)
	pauseNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
)

// PauseError is a broken pause marker and where it stands in the text, so
// an editor can point at it.
type PauseError struct {
	Offset, Length int // bytes of the marker within the text
	Message        string
}

func (e *PauseError) Error() string { return e.Message }

// SplitPauses parses pause markers (<#x#> for speech synthesis, #x# for
// lip-sync): x seconds in [0.01, 99.99] with at most two decimals, each
// marker between two speakable texts, never two in a row.
func SplitPauses(text string, style Pauses) ([]Segment, error) {
	re, open, close := ttsMarker, "<#", "#>"
	if style == PausesLipSync {
		re, open, close = lipMarker, "#", "#"
	}
	if style == PausesTTS {
		if err := unclosedMarker(text); err != nil {
			return nil, err
		}
	}
	var segs []Segment
	last, lastStart := 0, 0
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		before := text[last:m[0]]
		x := text[m[2]:m[3]]
		marker := open + x + close
		fail := func(format string, args ...any) error {
			return &PauseError{Offset: m[0], Length: m[1] - m[0], Message: fmt.Sprintf(format, args...)}
		}
		if !pauseNumber.MatchString(x) {
			return nil, fail("pause %s: x must be seconds, as %s1.5%s", textutil.Clip(marker, 40), open, close)
		}
		// The range is checked before the decimals so that <#100#> names the
		// limit it breaks.
		secs, _ := strconv.ParseFloat(x, 64)
		if secs < 0.01 || secs > 99.99 {
			return nil, fail("pause %s: x must lie within 0.01 to 99.99 seconds", textutil.Clip(marker, 40))
		}
		if _, frac, _ := strings.Cut(x, "."); len(frac) > 2 {
			return nil, fail("pause %s: x takes at most two decimals, as %s1.25%s", marker, open, close)
		}
		if !speakable(before) {
			if len(segs) > 0 {
				return nil, fail("pause %s follows another pause; put speakable text between pauses", marker)
			}
			return nil, fail("pause %s must stand between two speakable texts, not at the start", marker)
		}
		segs = append(segs, Segment{Text: before, Pause: secs})
		lastStart, last = m[0], m[1]
	}
	rest := text[last:]
	if len(segs) > 0 && !speakable(rest) {
		return nil, &PauseError{Offset: lastStart, Length: last - lastStart, Message: fmt.Sprintf("pause %s%s%s must stand between two speakable texts, not at the end", open, trimFloat(segs[len(segs)-1].Pause), close)}
	}
	return append(segs, Segment{Text: rest}), nil
}

// unclosedMarker finds a <# that no #> closes before the next < or > (a
// <#1.5> that lost its #): named on its own, never read as one marker with
// the next.
func unclosedMarker(text string) error {
	for i := 0; ; {
		j := strings.Index(text[i:], "<#")
		if j < 0 {
			return nil
		}
		start := i + j
		rest := text[start+2:]
		end := strings.Index(rest, "#>")
		if stray := strings.IndexAny(rest, "<>"); end < 0 || (stray >= 0 && stray < end) {
			n := len(rest)
			if stray >= 0 {
				n = stray
				if rest[stray] == '>' {
					n++ // the > is the marker's: <#1.5>
				}
			}
			if sp := strings.IndexFunc(rest[:n], unicode.IsSpace); sp >= 0 {
				n = sp
			}
			marker := text[start : start+2+n]
			return &PauseError{Offset: start, Length: len(marker),
				Message: fmt.Sprintf("pause %s: a marker ends with #>, as <#1.5#>", textutil.Clip(marker, 40))}
		}
		i = start + 2 + end + 2
	}
}

func speakable(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
