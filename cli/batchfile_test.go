package cli

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/studio"
)

const (
	jsonLine = `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "a red mug"}}` + "\n"
	csvLines = "operation,model,prompt\ntext2video,svcq3-turbo,a red mug\n"
)

// A batch file's format follows its name (.csv is CSV; .jsonl, .ndjson
// and .json are JSON Lines); any other name is JSON Lines when the file
// starts with "{", else CSV.
func TestBatchFormatFollowsTheName(t *testing.T) {
	for _, c := range []struct {
		name, data string
		parsed     bool
	}{
		{"b.csv", csvLines, true},
		{"b.csv", jsonLine, false},
		{"b.jsonl", jsonLine, true},
		{"b.jsonl", csvLines, false},
		{"b.ndjson", jsonLine, true},
		{"b.ndjson", csvLines, false},
		{"b.json", jsonLine, true},
		{"b.json", csvLines, false},
		{"B.CSV", csvLines, true},
		{"b.txt", "\ufeff  " + jsonLine, true},
		{"b.txt", csvLines, true},
		{"batch", jsonLine, true},
	} {
		b := parseBatch(c.name, []byte(c.data))
		if got := len(b.requests) == 1 && len(b.problems) == 0; got != c.parsed {
			t.Errorf("%s holding %.20q: requests %+v, problems %q; want parsed %v", c.name, c.data, b.requests, b.problems, c.parsed)
		}
	}
}

// Every kind of broken line is named with its number, blank lines are
// skipped (and counted), and a file without a request says so.
func TestBatchProblemsNameTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"b.jsonl", "", []string{"the file holds no request"}},
		{"b.jsonl", "\n  \n", []string{"the file holds no request"}},
		{"b.csv", "", []string{"line 1: want a header row of field names with an operation column"}},
		{"b.csv", "model,prompt\nsvcq3-turbo,a mug\n", []string{"line 1: no operation column"}},
		{"b.jsonl", "\n" + `{"operation": "text2video"}` + "\n", []string{"line 2: request: missing; give the request object"}},
		{"b.jsonl", `{"operation": "text2video", "request": [1]}` + "\n", []string{"line 1: request: "}},
		{"b.jsonl", `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "p", "image": "nope.png"}}` + "\n", []string{"line 1: "}},
		{"b.csv", "operation,model,prompt\n   \ntext2video,svcq3-turbo\n", []string{"line 3: 2 values for 3 columns"}},
		{"b.csv", "operation,model,prompt\ntext2vidoe,svcq3-turbo,p\n", []string{"line 2: operation: "}},
		{"b.csv", "operation,model,prompt\ntext2video,svcq3-turbo,\"p\n", []string{"line 2: not CSV: "}},
	} {
		b := parseBatch(c.name, []byte(c.data))
		if len(b.problems) != len(c.want) || len(b.requests) != 0 {
			t.Errorf("%s %q: requests %+v, problems %q; want %q", c.name, c.data, b.requests, b.problems, c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(b.problems[i], w) {
				t.Errorf("%s %q: problem %q, want it to start %q", c.name, c.data, b.problems[i], w)
			}
		}
	}
}

// A CSV row leaves an empty cell unset, takes the operation column from
// anywhere, and reads a local image relative to the file's folder.
func TestBatchCSVCellsAndPaths(t *testing.T) {
	dir := t.TempDir()
	var pic bytes.Buffer
	png.Encode(&pic, image.NewGray(image.Rect(0, 0, 320, 320)))
	if err := os.WriteFile(filepath.Join(dir, "mug.png"), pic.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := parseBatch(filepath.Join(dir, "b.csv"), []byte("model,images,operation,prompt,duration\nsvcq3-turbo,mug.png,img2video,the mug turns,\n"))
	if len(b.problems) != 0 || len(b.requests) != 1 {
		t.Fatalf("problems %q, requests %d", b.problems, len(b.requests))
	}
	r := b.requests[0]
	imgs, _ := r.Body["images"].([]any)
	if r.Op != api.OpImg2Video || r.Line != 2 || len(imgs) != 1 || !catalog.IsDataURI(imgs[0].(string)) {
		t.Errorf("request %+v", r)
	}
	if d, ok := r.Body["duration"]; ok && d != catalog.WithDefaults(api.OpImg2Video, map[string]any{"model": "svcq3-turbo"})["duration"] {
		t.Errorf("an empty duration cell gave %v", d)
	}
}

// Problems are listed by line, in file order within a line, after the
// size check adds its own.
func TestBatchProblemsStayInOrder(t *testing.T) {
	b := parseBatch("b.jsonl", []byte(jsonLine+`{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "p", "duration": 99, "aspect_ratio": "5:1"}}`+"\n"))
	if len(b.problems) != 2 {
		t.Fatalf("problems %q", b.problems)
	}
	want := append([]string(nil), b.problems...)
	uri := "data:image/png;base64," + strings.Repeat("A", 21<<20)
	b.requests = append(b.requests, studio.SetRequest{Line: 1, Op: api.OpImg2Video, Body: map[string]any{"model": "svcq1", "images": []any{uri}}})
	b.checkSizes(studio.Config{Uploads: studio.UploadNever})
	if len(b.problems) != 3 || !strings.HasPrefix(b.problems[0], "line 1: request body is") || b.problems[1] != want[0] || b.problems[2] != want[1] {
		t.Errorf("problems %q", b.problems)
	}
}

// The service's body limit is taken at its bound: a body of exactly 20 MB
// passes, a byte more does not.
func TestBatchBodyLimitAtItsBound(t *testing.T) {
	body := func(n int) map[string]any {
		return map[string]any{"model": "svcq1", "images": []any{"data:image/png;base64," + strings.Repeat("A", n)}}
	}
	raw, _ := json.Marshal(body(0))
	fill := catalog.MaxBodyBytes - len(raw)
	for n, want := range map[int]int{fill: 0, fill + 1: 1} {
		b := &batchFile{requests: []studio.SetRequest{{Line: 1, Op: api.OpImg2Video, Body: body(n)}}}
		b.checkSizes(studio.Config{Uploads: studio.UploadNever})
		if len(b.problems) != want {
			t.Errorf("a body of %d bytes: problems %q", len(raw)+n, b.problems)
		}
	}
}
