package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MediaRef describes one data URI that StripMedia took out of a request.
type MediaRef struct {
	Path        string // JSON path of the string, e.g. $.subjects[0].images[1]
	ContentType string // media type of the URI, e.g. image/png
	SHA256      string // hex digest of the decoded bytes
	Bytes       int64  // length of the decoded bytes
}

// Placeholder is the string that stands for the data URI in the stripped
// request. It has no comma, so it is not itself a data URI and stripping is
// idempotent.
func (m MediaRef) Placeholder() string {
	return fmt.Sprintf("data:%s;sha256=%s;bytes=%d", m.ContentType, m.SHA256, m.Bytes)
}

// StripMedia replaces every string anywhere in the JSON body that is a data
// URI with its placeholder and returns the refs in path order, with the
// decoded, stripped value (so that BeginSubmit reads the request's fields
// without decoding a 20 MB body twice). The output is re-encoded with sorted
// object keys, so two bodies that differ only in key order strip to the same
// bytes; numbers keep their exact text.
//
// A data URI whose base64 does not decode is hashed as written (the service
// will reject it; the history should still show what was sent).
func StripMedia(body []byte) (any, []byte, []MediaRef, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, nil, fmt.Errorf("record: request is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, nil, fmt.Errorf("record: request has data after the JSON value")
	}
	var refs []MediaRef
	v = stripValue(v, "$", &refs)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	// Prompts are shown to people; keep < > & readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, nil, fmt.Errorf("record: %w", err)
	}
	return v, bytes.TrimSuffix(out.Bytes(), []byte("\n")), refs, nil
}

func stripValue(v any, path string, refs *[]MediaRef) any {
	switch x := v.(type) {
	case string:
		if ref, ok := dataURIRef(x); ok {
			ref.Path = path
			*refs = append(*refs, ref)
			return ref.Placeholder()
		}
	case []any:
		for i := range x {
			x[i] = stripValue(x[i], path+"["+strconv.Itoa(i)+"]", refs)
		}
	case map[string]any:
		// Sorted so that refs come out in the same order as the encoder
		// writes the keys.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			x[k] = stripValue(x[k], path+pathKey(k), refs)
		}
	}
	return v
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func pathKey(k string) string {
	if identifier.MatchString(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// dataURIRef recognises data:[<mediatype>][;base64],<data> (RFC 2397).
func dataURIRef(s string) (MediaRef, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "data:") {
		return MediaRef{}, false
	}
	meta, data, ok := strings.Cut(s[5:], ",")
	if !ok {
		return MediaRef{}, false
	}
	params := strings.Split(meta, ";")
	ctype := strings.ToLower(strings.TrimSpace(params[0]))
	if ctype == "" {
		ctype = "text/plain"
	}
	raw := []byte(data)
	if strings.EqualFold(params[len(params)-1], "base64") {
		if b, err := decodeBase64(data); err == nil {
			raw = b
		}
	} else if u, err := url.PathUnescape(data); err == nil {
		raw = []byte(u)
	}
	sum := sha256.Sum256(raw)
	return MediaRef{ContentType: ctype, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(raw))}, true
}

// decodeBase64 accepts padded and unpadded, standard and URL alphabets, since
// encoders in the wild produce all four.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		var b []byte
		if b, err = enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, err
}
