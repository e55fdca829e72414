package cli

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
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
		b := parseBatch(c.name, []byte(c.data), studio.Config{})
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
		b := parseBatch(c.name, []byte(c.data), studio.Config{})
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
	b := parseBatch(filepath.Join(dir, "b.csv"), []byte("model,images,operation,prompt,duration\nsvcq3-turbo,mug.png,img2video,the mug turns,\n"), studio.Config{})
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

// Problems are listed by line, in file order within a line, the size
// rule's among them.
func TestBatchProblemsStayInOrder(t *testing.T) {
	uri := "data:image/png;base64," + strings.Repeat("A", 21<<20)
	big := `{"operation": "img2video", "request": {"model": "svcq1", "prompt": "p", "images": ["` + uri + `"]}}` + "\n"
	bad := `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "p", "duration": 99, "aspect_ratio": "5:1"}}` + "\n"
	b := parseBatch("b.jsonl", []byte(bad+big), studio.Config{Uploads: studio.UploadNever})
	var lines []int
	for _, p := range b.problems {
		lines = append(lines, problemLine(p))
	}
	if len(b.problems) < 3 || !slices.IsSorted(lines) || lines[0] != 1 || lines[len(lines)-1] != 2 ||
		!strings.Contains(b.problems[0], "duration") || !strings.HasPrefix(b.problems[len(b.problems)-1], "line 2: request body is") {
		t.Errorf("problems %q", b.problems)
	}
}
