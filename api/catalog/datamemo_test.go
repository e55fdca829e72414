package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// BodySize is what json.Marshal writes, data URIs of every kind included:
// large and plain, large with line breaks in their base64, large and not
// decodable, with a content type JSON escapes, and small ones.
func TestBodySizeIsTheJSONLength(t *testing.T) {
	big := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0x10, 0x7f}, memoMin))
	wrapped := big[:1000] + "\r\n" + big[1000:]
	lineFeeds := big[:1000] + "\n" + big[1000:]
	returns := big[:1000] + "\r" + big[1000:]
	for name, req := range map[string]map[string]any{
		"plain":        {"images": []any{"data:image/png;base64," + big}, "prompt": "a \"quoted\" <cat>"},
		"line breaks":  {"images": []any{"data:image/png;base64," + wrapped}},
		"line feed":    {"images": []any{"data:image/png;base64," + lineFeeds}},
		"return":       {"images": []any{"data:image/png;base64," + returns}},
		"not base64":   {"image": "data:image/png;base64," + big[:len(big)-9] + "!!!<>&!!!"},
		"escaped type": {"subjects": []any{map[string]any{"images": []any{"data:image/<png>;base64," + big}}}},
		"small":        {"images": []any{"data:image/png;base64,iVBORw0KGgo="}, "n": 3},
	} {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		n, err := BodySize(req)
		if err != nil || n != len(b) {
			t.Errorf("%s: BodySize %d (%v), JSON is %d bytes", name, n, err, len(b))
		}
	}
}

// A large data URI decoded again answers the same, from memory.
func TestParseDataURIRemembersLargeOnes(t *testing.T) {
	raw := bytes.Repeat([]byte("abc"), memoMin)
	s := "data:image/png;base64," + base64.StdEncoding.EncodeToString(raw)
	first, err := ParseDataURI(s)
	if err != nil || !bytes.Equal(first.Data, raw) {
		t.Fatalf("first decoding: %v", err)
	}
	again, err := ParseDataURI(s)
	if err != nil || &again.Data[0] != &first.Data[0] || again.ContentType != "image/png" {
		t.Errorf("the same string decoded again (%v)", err)
	}
	other := strings.Clone(s)
	if d, err := ParseDataURI(other); err != nil || &d.Data[0] == &first.Data[0] || !bytes.Equal(d.Data, raw) {
		t.Errorf("an equal string at another address: %v", err)
	}
}
