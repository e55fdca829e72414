package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/studio"
)

// maxBatchFile bounds what is read of a batch file: 10,000 lines of
// requests with inlined images still fit, and a device or an endless
// stream is refused. maxBatchLines and maxBatchLine bound what is checked
// before anything is said: every line is prepared in full (its files read,
// its rules checked), so a million lines, or one line of hundreds of
// megabytes, would cost gigabytes and a minute before the first word.
const (
	maxBatchFile  = 512 << 20
	maxBatchLines = 10_000
	maxBatchLine  = 32 << 20
)

// batchFile is a batch file checked whole.
type batchFile struct {
	sha      string // the SHA-256 of its bytes: the batch's identity
	requests []studio.SetRequest
	problems []string // "line N: field: what is allowed", in file order
	// cfg decides the size rule (uploads); dir is where local media
	// paths are read from, the file's folder.
	cfg studio.Config
	dir string
}

// parseBatch reads a batch file: JSON Lines ({"operation": ..., "request":
// {...}} a line; blank lines skipped) or CSV (a header row of field names
// and an operation column; values typed by the catalog as --set types
// them). A name ending .csv is CSV, one ending .jsonl, .ndjson or .json
// is JSON Lines, else the first character decides. Local media paths are
// read relative to the file's folder. Every line is checked against every
// rule and the size rule of cfg's uploads, through the studio's one
// preparation path; a broken one is listed, never skipped.
func parseBatch(name string, data []byte, cfg studio.Config) *batchFile {
	sum := sha256.Sum256(data)
	b := &batchFile{sha: hex.EncodeToString(sum[:]), cfg: cfg, dir: filepath.Dir(name)}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	ext := strings.ToLower(filepath.Ext(name))
	isCSV := ext == ".csv"
	if ext != ".csv" && ext != ".jsonl" && ext != ".ndjson" && ext != ".json" {
		isCSV = !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
	}
	if why := batchTooLarge(data); why != "" {
		b.problems = append(b.problems, why)
		return b
	}
	if isCSV {
		b.readCSV(data)
	} else {
		b.readJSONLines(data)
	}
	if len(b.requests) == 0 && len(b.problems) == 0 {
		b.problems = append(b.problems, "the file holds no request")
	}
	sort.SliceStable(b.problems, func(i, j int) bool { return problemLine(b.problems[i]) < problemLine(b.problems[j]) })
	return b
}

// batchTooLarge says which bound a batch file passes ("" when none), before
// a line of it is read as a request.
func batchTooLarge(data []byte) string {
	lines := 0
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(line) > maxBatchLine {
			return fmt.Sprintf("line %d: %s long; a line is at most %s (give large media as URLs or paths, which are read when sent)",
				n, api.ByteSize(int64(len(line))), api.ByteSize(maxBatchLine))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if lines++; lines > maxBatchLines {
				return fmt.Sprintf("the file holds more than %d requests; a batch is at most %d lines: split it into several files", maxBatchLines, maxBatchLines)
			}
		}
		data = rest
	}
	return ""
}

func (b *batchFile) broken(line int, format string, args ...any) {
	b.problems = append(b.problems, fmt.Sprintf("line %d: ", line)+api.CleanText(fmt.Sprintf(format, args...)))
}

// batchLine is a JSON Lines entry.
type batchLine struct {
	Operation string          `json:"operation"`
	Request   json.RawMessage `json:"request"`
}

func (b *batchFile) readJSONLines(data []byte) {
	for i, raw := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var bl batchLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&bl); err != nil {
			b.broken(n, `want {"operation": "...", "request": {...}}: %v`, err)
			continue
		}
		op, err := api.ParseOperation(bl.Operation)
		if err != nil {
			b.broken(n, "operation: %v", err)
			continue
		}
		if len(bl.Request) == 0 {
			b.broken(n, "request: missing; give the request object")
			continue
		}
		body, err := decodeObject(bl.Request)
		if err != nil {
			b.broken(n, "request: %v", err)
			continue
		}
		b.check(n, op, body)
	}
}

func (b *batchFile) readCSV(data []byte) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		b.broken(1, "want a header row of field names with an operation column: %v", err)
		return
	}
	opCol := -1
	for i, h := range header {
		header[i] = strings.TrimSpace(h)
		if header[i] == "operation" {
			opCol = i
		}
	}
	if opCol < 0 {
		b.broken(1, "no operation column; the header names the fields and operation")
		return
	}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		n, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				n = pe.StartLine
			}
			b.broken(n, "not CSV: %v", err)
			continue
		}
		if len(row) == 1 && strings.TrimSpace(row[0]) == "" {
			continue
		}
		if len(row) != len(header) {
			b.broken(n, "%d values for %d columns", len(row), len(header))
			continue
		}
		op, err := api.ParseOperation(strings.TrimSpace(row[opCol]))
		if err != nil {
			b.broken(n, "operation: %v", err)
			continue
		}
		body, ok := map[string]any{}, true
		for i, v := range row {
			if i == opCol || v == "" {
				continue
			}
			if err := applySet(op, body, csvAssignment(op, header[i], v, b.dir), false); err != nil {
				b.broken(n, "%v", err)
				ok = false
			}
		}
		if ok {
			b.check(n, op, body)
		}
	}
}

// csvAssignment is a CSV cell as a --set assignment: a list of objects
// (subjects, timing prompts) is JSON in its cell, and a local media path
// is read relative to the file's folder.
func csvAssignment(op api.Operation, name, value, dir string) string {
	f, known := catalog.FieldOf(op, name)
	if !known {
		return name + "=" + value
	}
	switch f.Kind {
	case catalog.KindSubjects, catalog.KindTimingPrompts, catalog.KindJSONArray, catalog.KindKeyFrames:
		return name + ":=" + value
	}
	if f.Media != catalog.MediaNone && catalog.IsLocalPath(value) && !filepath.IsAbs(value) {
		value = filepath.Join(dir, value)
	}
	return name + "=" + value
}

// check prepares one request as every front end does and keeps it, or
// lists what is broken.
func (b *batchFile) check(n int, op api.Operation, body map[string]any) {
	p, err := studio.PrepareRequest(b.cfg, op, body, b.dir)
	if err != nil {
		b.broken(n, "%v", err)
		return
	}
	for _, e := range p.Errors {
		b.broken(n, "%s", e.Message)
	}
	if p.TooLarge != "" {
		b.broken(n, "%s", p.TooLarge)
	}
	if p.OK() {
		b.requests = append(b.requests, studio.SetRequest{Line: n, Op: op, Body: p.Body, Content: lineContent(op, p.Body)})
	}
}

// lineContent tells what a line asks for, wherever it stands in the file:
// a hash of its operation and its request as it would be sent (its local
// files' bytes included), keys in order.
func lineContent(op api.Operation, body map[string]any) string {
	b, err := json.Marshal(body)
	if err != nil {
		return "" // checked before: cannot happen; an unmatched line is sent
	}
	h := sha256.New()
	h.Write([]byte(op))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// problemLine is the line number a problem starts with.
func problemLine(p string) int {
	var n int
	fmt.Sscanf(p, "line %d:", &n)
	return n
}

// batchRefused lists every broken line of a batch file: nothing was sent.
func batchRefused(name string, problems []string) error {
	var s strings.Builder
	fmt.Fprintf(&s, "batch not sent: %s has %s", api.CleanText(name), textutil.Plural(len(problems), "problem"))
	for _, p := range problems {
		s.WriteString("\n  ")
		s.WriteString(p)
	}
	return &ExitError{Code: 2, Err: errors.New(s.String())}
}
