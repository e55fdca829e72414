package record

import (
	"clapper/api"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseTags reads tags typed as words separated by commas or spaces. They
// are kept in lower case, each once, in the order given; a word that is no
// tag is named with what is allowed.
func ParseTags(s string) ([]string, error) {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var tags []string
	for _, w := range words {
		tag, err := ParseTag(w)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}
	if len(tags) > MaxTags {
		return nil, fmt.Errorf("tags: %d given, a task takes at most %d", len(tags), MaxTags)
	}
	return tags, nil
}

// CleanNote makes a typed note safe to keep and print: escape sequences and
// control characters go (newlines and tabs stay), and so do the spaces
// around it; it is refused past MaxNoteLen characters.
func CleanNote(s string) (string, error) {
	s = strings.TrimSpace(api.CleanText(s))
	if n := utf8.RuneCountInString(s); n > MaxNoteLen {
		return "", fmt.Errorf("note: %d characters, at most %d are kept", n, MaxNoteLen)
	}
	return s, nil
}

const (
	// MaxTagLen and MaxTags bound what a task takes: tags are for finding
	// tasks again, not for prose (that is the note).
	MaxTagLen = 32
	MaxTags   = 16
	// MaxNoteLen is the note's length in characters.
	MaxNoteLen = 2000
	// TagRule says what a tag may be, for help texts and errors.
	TagRule = "letters, digits, - _ and . (starting with a letter or digit), up to 32 characters"
)

// ParseTag checks one tag and gives it in lower case.
func ParseTag(w string) (string, error) {
	tag := strings.ToLower(w)
	first, _ := utf8.DecodeRuneInString(tag)
	ok := tag != "" && utf8.RuneCountInString(tag) <= MaxTagLen && (unicode.IsLetter(first) || unicode.IsDigit(first))
	for _, r := range tag {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			ok = false
		}
	}
	if !ok {
		return "", fmt.Errorf("tag %q: a tag is %s", api.CleanLine(w), TagRule)
	}
	return tag, nil
}
