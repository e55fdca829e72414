package cli

import (
	"clapper/studio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A batch file past its bounds is refused before any line is read as a
// request (exit 2, nothing sent), with the bound named: more than 10,000
// requests, or one line past 32 MB.
func TestBatchFileBoundsAreNamed(t *testing.T) {
	dir := t.TempDir()
	line := `{"operation":"text2video","request":{"model":"svcq3-pro","prompt":"a fox"}}` + "\n"
	many := filepath.Join(dir, "many.jsonl")
	if err := os.WriteFile(many, []byte(strings.Repeat(line, 10_001)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "batch", many)
	if r.code != 2 || !strings.Contains(r.err, "more than 10000 requests") || !strings.Contains(r.err, "split it") {
		t.Errorf("10,001 lines: %+v", r)
	}
	exactly := filepath.Join(dir, "exactly.jsonl")
	if err := os.WriteFile(exactly, []byte(strings.Repeat(line, 10_000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, "", "batch", exactly, "--dry-run"); r.code != 0 {
		t.Errorf("10,000 lines are allowed: %+v", r)
	}
	long := filepath.Join(dir, "long.jsonl")
	big := `{"operation":"text2video","request":{"model":"svcq3-pro","prompt":"` + strings.Repeat("a", 33<<20) + `"}}` + "\n"
	if err := os.WriteFile(long, []byte(line+big), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "", "batch", long)
	if r.code != 2 || !strings.Contains(r.err, "line 2:") || !strings.Contains(r.err, "a line is at most 32") {
		t.Errorf("a 33 MB line: %+v", r)
	}
}

// Checking a batch holds memory within a small multiple of the file: ten
// thousand requests of a kilobyte each are checked holding less than three
// times the file's size (trust round two: a million lines held 1.6 GB).
func TestBatchCheckMemoryIsASmallMultipleOfTheFile(t *testing.T) {
	var b strings.Builder
	for i := range maxBatchLines {
		fmt.Fprintf(&b, `{"operation":"text2video","request":{"model":"svcq3-pro","prompt":"%d %s"}}`+"\n", i, strings.Repeat("a fox in snow ", 70))
	}
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	bf := parseBatch("b.jsonl", data, studio.Config{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(bf.requests) != maxBatchLines || len(bf.problems) != 0 {
		t.Fatalf("%d requests, problems %v", len(bf.requests), bf.problems)
	}
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 3*int64(len(data)) {
		t.Errorf("checking a %d-byte batch holds %d bytes", len(data), held)
	}
	runtime.KeepAlive(bf)
}
