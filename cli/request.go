package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// buildRequest assembles a creation body from a JSON file (or stdin for
// "-") and --set assignments, in that order. Local file paths given for
// media fields become data URIs: paths in the file are read relative to
// the file's folder, paths in --set relative to the working directory.
// force lets --set name fields no table has (the service judges them).
func buildRequest(ctx context.Context, op api.Operation, file string, stdin io.Reader, sets []string, force bool) (map[string]any, error) {
	body := map[string]any{}
	fileDir := "."
	if file != "" {
		data, err := readRequest(ctx, file, stdin)
		if err != nil {
			return nil, fmt.Errorf("read request: %w", err)
		}
		if file != "-" {
			fileDir = filepath.Dir(file)
		}
		if body, err = decodeObject(data); err != nil {
			return nil, fmt.Errorf("%s: %w", displayName(file), err)
		}
		if err := catalog.InlineFiles(op, body, fileDir); err != nil {
			return nil, err
		}
	}
	for _, s := range sets {
		if err := applySet(op, body, s, force); err != nil {
			return nil, err
		}
	}
	// An image data URI is sent with the type its bytes have (a PNG
	// labelled image/jpeg as image/png), as the service reads it.
	body, _ = catalog.Relabel(op, body)
	return body, nil
}

// readRequest reads a request file, or standard input for "-", with the
// cap of a request body (media a file names are read later, each capped
// alike): a device or an endless stream is refused, not read until memory
// runs out, and a wait for standard input ends with Ctrl-C.
func readRequest(ctx context.Context, file string, stdin io.Reader) ([]byte, error) {
	if file == "-" {
		return api.ReadStream(ctx, stdin, catalog.MaxBodyBytes, displayName(file))
	}
	return api.ReadRegularFile(file, catalog.MaxBodyBytes)
}

func displayName(file string) string {
	if file == "-" {
		return "standard input"
	}
	return file
}

func decodeObject(data []byte) (map[string]any, error) {
	// Some editors start a UTF-8 file with a byte-order mark, which JSON
	// does not allow but which says nothing either.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if body == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value; give one request object")
	}
	return body, nil
}

func decodeValue(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// applySet applies field=value (typed by the catalog; a list field gains one
// item per repeat; an empty value unsets the field) or field:=JSON (any
// value, e.g. subjects). With force a field no table names is set as given:
// text after =, any JSON after :=.
func applySet(op api.Operation, body map[string]any, s string, force bool) error {
	if name, raw, ok := strings.Cut(s, ":="); ok && !strings.Contains(name, "=") {
		if _, known := catalog.FieldOf(op, name); !known && !force {
			return unknownField(op, name)
		}
		v, err := decodeValue(raw)
		if err != nil {
			return fmt.Errorf("--set %s:=%s: not valid JSON (%v)", name, textutil.Clip(raw, 40), err)
		}
		if err := catalog.InlineValue(op, name, &v, "."); err != nil {
			return err
		}
		body[name] = v
		return nil
	}
	name, raw, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("--set %q: want field=value or field:=JSON", s)
	}
	f, known := catalog.FieldOf(op, name)
	switch {
	case !known && !force:
		return unknownField(op, name)
	case raw == "":
		delete(body, name) // empty means unset, whatever the file said
		return nil
	case !known:
		body[name] = raw
		return nil
	}
	switch f.Kind {
	case catalog.KindSubjects, catalog.KindTimingPrompts, catalog.KindJSONArray, catalog.KindKeyFrames:
		return fmt.Errorf("--set %s: a list of objects; give it as JSON: --set '%s:=[...]'", name, name)
	case catalog.KindMediaList, catalog.KindStringList:
		item := raw
		if f.Kind == catalog.KindMediaList && catalog.IsLocalPath(raw) {
			uri, err := catalog.FileToDataURI(raw, f.Media)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			item = uri
		}
		var list []any
		switch prev := body[name].(type) {
		case []any:
			list = prev
		case string: // a file's single item, which the service reads as a list of one
			list = []any{prev}
		}
		body[name] = append(list, item)
		return nil
	}
	body[name] = typedScalar(f, raw)
	if f.Media != catalog.MediaNone && f.Kind == catalog.KindMedia && catalog.IsLocalPath(raw) {
		uri, err := catalog.FileToDataURI(raw, f.Media)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		body[name] = uri
	}
	if f.Kind == catalog.KindURL && catalog.IsLocalPath(raw) {
		if _, err := os.Stat(raw); err == nil {
			return fmt.Errorf("%s: %s needs an http(s) URL the service can fetch; a local file cannot be sent", name, op)
		}
	}
	return nil
}

// typedScalar converts a --set value by the field's kind. A value that does
// not parse is kept as text, so validation names the field and what it takes.
func typedScalar(f catalog.Field, raw string) any {
	switch f.Kind {
	case catalog.KindInt, catalog.KindNumber:
		if n, ok := jsonNumber(strings.TrimSpace(raw)); ok {
			return n
		}
	case catalog.KindBool:
		if b, err := strconv.ParseBool(raw); err == nil {
			return b
		}
	}
	return raw
}

// numberSpelling is a decimal number as people type it: +5, 05, .5, 5., 1e1.
var numberSpelling = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?([eE][+-]?[0-9]+)?$`)

// jsonNumber rewrites a typed number as the JSON number of the same value,
// digit for digit (no float rounding of long integers): +5 is 5, 05 is 5,
// .5 is 0.5, 5. is 5.
func jsonNumber(raw string) (json.Number, bool) {
	m := numberSpelling.FindStringSubmatch(raw)
	if m == nil || m[2]+m[3] == "" {
		return "", false
	}
	sign, whole, frac, exp := m[1], strings.TrimLeft(m[2], "0"), m[3], m[4]
	if sign == "+" {
		sign = ""
	}
	if whole == "" {
		whole = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	return json.Number(sign + whole + frac + exp), true
}

// unknownField refuses a field no table of the operation names, suggesting
// the one probably meant.
func unknownField(op api.Operation, name string) error {
	if near := catalog.Suggest(op, name); near != "" {
		return &ExitError{Code: 2, Err: fmt.Errorf("%s: not a field of %s; did you mean %s? (--force sends it as it is)", textutil.Clip(name, 60), op, near)}
	}
	return &ExitError{Code: 2, Err: fmt.Errorf("%s: not a field of %s; fields: %s", textutil.Clip(name, 60), op, strings.Join(catalog.FieldNames(op), ", "))}
}
