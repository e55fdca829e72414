package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// snapDir holds every tool's listing as agents receive it, one file a
// tool: a change to a name, description, schema or annotation shows in
// review as a change to its file (as github-mcp-server's __toolsnaps__).
const snapDir = "testdata/toolsnaps"

// Every listed tool matches its reviewed snapshot, and every snapshot is
// of a listed tool. After reviewing a change on purpose:
//
//	UPDATE_TOOLSNAPS=1 go test ./mcp -run TestToolSnapshots
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") == "1"
	var listed []string
	for _, o := range []Options{{}, {Compact: true, Tools: []string{"create"}}} {
		r := newRig(t, rigOpts{server: o})
		res, err := r.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			listed = append(listed, tool.Name)
			got, err := json.MarshalIndent(tool, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(snapDir, tool.Name+".json")
			if update {
				if err := os.MkdirAll(snapDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s has no snapshot (%v): review it, then UPDATE_TOOLSNAPS=1 go test ./mcp -run TestToolSnapshots", tool.Name, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s changed from its snapshot %s: review the change, then UPDATE_TOOLSNAPS=1 go test ./mcp -run TestToolSnapshots\n%s",
					tool.Name, path, firstDifference(string(want), string(got)))
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(snapDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !slices.Contains(listed, name) {
			if update {
				os.Remove(f)
				continue
			}
			t.Errorf("snapshot %s is of no listed tool: remove it if the tool went on purpose", f)
		}
	}
}

// firstDifference shows the first line where two snapshots part.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n  was: " + a + "\n  now: " + b
		}
	}
	return ""
}
