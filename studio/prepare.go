package studio

import (
	"fmt"

	"clapper/api"
	"clapper/api/catalog"
)

// Prepared is a request checked for sending: the body as it goes (local
// files inlined, images labelled by their bytes, normalized), what it
// breaks, its size, and its price.
type Prepared struct {
	Body map[string]any
	// Errors are the catalog's rules the body breaks (nil when none).
	Errors catalog.Errors
	// Size is the inlined body's length in bytes; TooLarge, when set, says
	// why that size cannot be sent (its images cannot be uploaded instead).
	Size     int
	TooLarge string
	Price    Price
}

// OK reports whether the request may be sent as it is.
func (p Prepared) OK() bool { return p.Errors == nil && p.TooLarge == "" }

// PrepareRequest is the one preparation path of every front end: local
// files (read from dir when relative) become data URIs, an image is
// declared with the type its bytes have, the catalog's rules are checked,
// the body is normalized, and its size is held against the service's 20 MB
// with the one size rule: a body over it is sent when its images will be
// uploaded instead (uploads not "never"). A file that cannot be read is
// the error; broken rules are in the result, for the front end to tell
// (or, forced, to send anyway). It needs no running backend (a dry run);
// Studio.Prepare adds the price.
func PrepareRequest(cfg Config, op api.Operation, body map[string]any, dir string) (Prepared, error) {
	return prepare(cfg, op, body, dir, nil)
}

// prepare is PrepareRequest reading only the local files allow accepts
// (nil: any).
func prepare(cfg Config, op api.Operation, body map[string]any, dir string, allow func(path string) error) (Prepared, error) {
	if err := catalog.InlineFilesWithin(op, body, dir, allow); err != nil {
		return Prepared{}, err
	}
	r, err := catalog.Prepare(op, body)
	if err != nil {
		return Prepared{}, err
	}
	p := Prepared{Body: r.Body, Errors: r.Errors, Size: r.Size}
	p.TooLarge = cfg.SizeRule(op, p.Body, p.Size)
	return p, nil
}

// SizeRule is the one size rule: why a request of size bytes (its files
// inlined) cannot be sent, "" when it can: at most 20 MB, or more when its
// images will be uploaded instead (uploads not "never").
func (c Config) SizeRule(op api.Operation, body map[string]any, size int) string {
	if size <= catalog.MaxBodyBytes || c.NeedsNoInlining(op, body) {
		return ""
	}
	return fmt.Sprintf("request body is %.1f MB; the service takes at most 20 MB (use URLs for large media)", float64(size)/(1<<20))
}

// Prepare is PrepareRequest on this studio's configuration, priced.
func (s *Studio) Prepare(op api.Operation, body map[string]any, dir string) (Prepared, error) {
	return s.PrepareWithin(op, body, dir, nil)
}

// PrepareWithin is Prepare reading only the local files allow accepts (an
// agent's media roots); a path it refuses is the error, before anything
// looks at the file.
func (s *Studio) PrepareWithin(op api.Operation, body map[string]any, dir string, allow func(path string) error) (Prepared, error) {
	p, err := prepare(s.Config, op, body, dir, allow)
	if err != nil {
		return Prepared{}, err
	}
	p.Price = s.Price(op, p.Body)
	return p, nil
}
