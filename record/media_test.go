package record

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestStripMedia(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	pngURI := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	wav := []byte("RIFF....WAVEfmt ")
	wavURI := "data:audio/wav;base64," + base64.RawURLEncoding.EncodeToString(wav)
	pngRef := MediaRef{ContentType: "image/png", SHA256: sum(png), Bytes: int64(len(png))}

	for _, c := range []struct {
		name string
		in   string
		want string // stripped output, compared as JSON
		refs []MediaRef
	}{
		{
			name: "no media, numbers keep their text",
			in:   `{"prompt":"a <b> & c","seed":12345678901234567890,"duration":5.0}`,
			want: `{"duration":5.0,"prompt":"a <b> & c","seed":12345678901234567890}`,
		},
		{
			name: "top-level list and nested subject",
			in: `{"model":"svcq2","images":["https://x/a.png","` + pngURI + `"],
				"subjects":[{"name":"cat","images":["` + pngURI + `"],"voice_id":"v"}]}`,
			want: `{"images":["https://x/a.png","` + pngRef.Placeholder() + `"],"model":"svcq2",
				"subjects":[{"images":["` + pngRef.Placeholder() + `"],"name":"cat","voice_id":"v"}]}`,
			refs: []MediaRef{
				{Path: "$.images[1]", ContentType: "image/png", SHA256: sum(png), Bytes: int64(len(png))},
				{Path: "$.subjects[0].images[0]", ContentType: "image/png", SHA256: sum(png), Bytes: int64(len(png))},
			},
		},
		{
			name: "unpadded URL-safe base64, odd key",
			in:   `{"audio url":"` + wavURI + `"}`,
			want: `{"audio url":"data:audio/wav;sha256=` + sum(wav) + `;bytes=` + "16" + `"}`,
			refs: []MediaRef{{Path: `$["audio url"]`, ContentType: "audio/wav", SHA256: sum(wav), Bytes: 16}},
		},
		{
			name: "percent-encoded text, upper-case scheme, default type",
			in:   `{"a":"DATA:,hello%20world"}`,
			want: `{"a":"data:text/plain;sha256=` + sum([]byte("hello world")) + `;bytes=11"}`,
			refs: []MediaRef{{Path: "$.a", ContentType: "text/plain", SHA256: sum([]byte("hello world")), Bytes: 11}},
		},
		{
			name: "a string that only starts like a data URI is kept",
			in:   `{"prompt":"data: no comma here","p2":"database, not a URI"}`,
			want: `{"p2":"database, not a URI","prompt":"data: no comma here"}`,
		},
		{
			name: "undecodable base64 is hashed as written",
			in:   `{"x":"data:image/png;base64,!!!"}`,
			want: `{"x":"data:image/png;sha256=` + sum([]byte("!!!")) + `;bytes=3"}`,
			refs: []MediaRef{{Path: "$.x", ContentType: "image/png", SHA256: sum([]byte("!!!")), Bytes: 3}},
		},
		{
			name: "array at the top",
			in:   `["` + pngURI + `", 1, null, true]`,
			want: `["` + pngRef.Placeholder() + `", 1, null, true]`,
			refs: []MediaRef{{Path: "$[0]", ContentType: "image/png", SHA256: sum(png), Bytes: int64(len(png))}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, refs, err := stripBody([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(c.want)) {
				t.Errorf("stripped\n got %s\nwant %s", got, c.want)
			}
			if !reflect.DeepEqual(refs, c.refs) {
				t.Errorf("refs\n got %+v\nwant %+v", refs, c.refs)
			}
			if strings.Contains(string(got), ";base64,") {
				t.Errorf("a data URI survived: %s", got)
			}
			// Stripping is idempotent: a placeholder is not a data URI.
			again, refs2, err := stripBody(got)
			if err != nil || string(again) != string(got) || len(refs2) != 0 {
				t.Errorf("second strip changed it: %s %v %v", again, refs2, err)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestStripMediaKeyOrderIrrelevant(t *testing.T) {
	uri := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString([]byte("jpeg"))
	a := `{"model":"m","images":["` + uri + `"],"subjects":[{"name":"n","images":["` + uri + `"]}],"prompt":"p"}`
	b := `{"prompt":"p","subjects":[{"images":["` + uri + `"],"name":"n"}],"images":["` + uri + `"],"model":"m"}`
	sa, ra, err := stripBody([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	sb, rb, err := stripBody([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if string(sa) != string(sb) {
		t.Errorf("same request, different key order, different bytes:\n%s\n%s", sa, sb)
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("refs differ: %+v %+v", ra, rb)
	}
}

func TestStripMediaRejectsNonJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1} {"b":2}`, `nope`} {
		if _, _, err := stripBody([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzStripMedia(f *testing.F) {
	f.Add([]byte(`{"images":["data:image/png;base64,aGk="],"n":1.50}`))
	f.Add([]byte(`["data:,x", {"k": "data:a/b;base64,@@"}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := stripBody(in)
		if err != nil {
			return
		}
		again, refs, err := stripBody(out)
		if err != nil || string(again) != string(out) || len(refs) != 0 {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v, %v)", in, out, again, refs, err)
		}
	})
}

// stripBody is StripMedia without the decoded value.
func stripBody(body []byte) ([]byte, []MediaRef, error) {
	_, stripped, refs, err := StripMedia(body)
	return stripped, refs, err
}
