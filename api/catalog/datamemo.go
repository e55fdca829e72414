package catalog

import (
	"encoding/json"
	"strings"
	"sync"
	"unsafe"
)

// memoMin is the length from which a data URI's decoding is remembered.
const memoMin = 1 << 20

// decoded remembers the last few large data URIs decoded, by the identity
// of the string (its bytes never change): the same string checked again is
// not decoded again. Each entry keeps its string alive, so no other string
// can take its place at the same address.
var decoded = &dataMemo{}

type dataMemo struct {
	mu      sync.Mutex
	entries [2]memoEntry
	next    int
}

type memoEntry struct {
	s   string
	d   DataURI
	err error
	// plain: the base64 holds no line break (which the decoder skips but
	// JSON escapes), so it is written to JSON as is.
	plain bool
}

func (m *dataMemo) get(s string) (DataURI, error) {
	e := m.entry(s)
	return e.d, e.err
}

func (m *dataMemo) entry(s string) memoEntry {
	m.mu.Lock()
	for _, e := range m.entries {
		if len(e.s) == len(s) && unsafe.StringData(e.s) == unsafe.StringData(s) {
			m.mu.Unlock()
			return e
		}
	}
	m.mu.Unlock()
	d, err := parseDataURI(s)
	e := memoEntry{s: s, d: d, err: err, plain: strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') < 0}
	m.mu.Lock()
	m.entries[m.next] = e
	m.next = (m.next + 1) % len(m.entries)
	m.mu.Unlock()
	return e
}

// BodySize is the length of a request written as JSON, against
// MaxBodyBytes, without writing the large data URIs it holds: a form
// measures its request after every key, and each would cost a copy of its
// megabytes. A data URI that decodes holds only base64 after its comma,
// which JSON writes as is, so it counts as its own length.
func BodySize(req map[string]any) (int, error) {
	bulk := 0
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case string:
			if len(x) < memoMin || !IsDataURI(x) {
				return x
			}
			meta, data, ok := strings.Cut(x, ",")
			if e := decoded.entry(x); ok && e.err == nil && e.plain {
				bulk += len(data)
				return meta + ","
			}
		case []any:
			out := make([]any, len(x))
			for i, it := range x {
				out[i] = strip(it)
			}
			return out
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, it := range x {
				out[k] = strip(it)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(strip(req))
	return len(b) + bulk, err
}
