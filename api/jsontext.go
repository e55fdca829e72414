package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeJSON re-encodes a JSON text so that it is safe to write to a
// terminal byte for byte: every control character a string holds raw (DEL,
// the C1 controls U+0080-U+009F that act like ESC, U+2028 and U+2029) is
// written as a \u escape, and bytes that are not UTF-8 become \ufffd, as a
// JSON decoder would read them. Everything else, the service's spacing and
// key order included, is kept as it was, so an answer "as received" still
// is, and it decodes to the same values.
func EscapeJSON(raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, errors.New("not a JSON text")
	}
	return mapLiterals(raw, escapeLiteral), nil
}

// mapLiterals replaces each string literal (object keys too) of a valid
// JSON text by what f makes of it, keeping every byte between them.
func mapLiterals(raw []byte, f func(lit []byte) []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(raw))
	for i := 0; i < len(raw); {
		if raw[i] != '"' {
			out.WriteByte(raw[i])
			i++
			continue
		}
		j := i + 1
		for raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		out.Write(f(raw[i : j+1]))
		i = j + 1
	}
	return out.Bytes()
}

// escapeLiteral escapes the raw control runes of one string literal;
// escapes already written are kept as they are.
func escapeLiteral(lit []byte) []byte {
	var out []byte
	for i := 0; i < len(lit); {
		if lit[i] == '\\' {
			out = append(out, lit[i], lit[i+1])
			i += 2
			continue
		}
		r, size := utf8.DecodeRune(lit[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case isControl(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, lit[i:i+size]...)
		}
		i += size
	}
	return out
}

// isControl is what CleanText removes and EscapeJSON escapes.
func isControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// Scrub removes secret from a body the service sent, wherever it appears:
// verbatim, or inside a JSON string in any escaped spelling (KEY\/SECRET,
// \u002b), or hidden by control characters that cleaning would remove.
// The string that held it is then stored cleaned, with [redacted] in its
// place; a body without the secret is returned unchanged.
//
// A secret shorter than MinSecret is left alone: it protects nothing and
// would cut ordinary words out of every answer (the embedded sandbox's
// token "sandbox" is in each of its result URLs).
func Scrub(body []byte, secret string) []byte {
	if len(secret) < MinSecret {
		return body
	}
	if json.Valid(body) {
		body = mapLiterals(body, func(lit []byte) []byte {
			var s string
			if json.Unmarshal(lit, &s) != nil {
				return lit
			}
			clean := scrubText(s, secret)
			if clean == s {
				return lit
			}
			enc, _ := marshalString(clean)
			return enc
		})
	}
	// Outside a string (a number, or a body that is not JSON) only the
	// verbatim spelling can be found.
	return bytes.ReplaceAll(body, []byte(secret), []byte(redacted))
}

const redacted = "[redacted]"

// MinSecret is the length (in bytes) from which a key is scrubbed.
const MinSecret = 8

// scrubText replaces secret in s, in s as it would be shown once cleaned.
func scrubText(s, secret string) string {
	if strings.Contains(s, secret) {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	if c := CleanText(s); strings.Contains(c, secret) {
		return strings.ReplaceAll(c, secret, redacted)
	}
	return s
}

func marshalString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// cleanStrings applies CleanText to every string a decoded answer holds,
// however deeply, so no field added later can skip it. The raw body
// (json.RawMessage) is left as received. Answer types hold no maps or
// interfaces (a test keeps it so), which this walk could not reach.
func cleanStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(CleanText(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			cleanStrings(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			cleanStrings(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			cleanStrings(v.Index(i))
		}
	}
}
