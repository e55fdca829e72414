package catalog

import "clapper/api"

// Ready is a body whose files are read, checked against the rules and
// written as it goes on the wire.
type Ready struct {
	Body map[string]any
	// Errors are the rules the body breaks (nil when none).
	Errors Errors
	// Size is the body's length in bytes as JSON, data URIs included.
	Size int
}

// Prepare takes a body whose local files are already data URIs through the
// steps every front end takes before sending it: each image is declared
// with the type its bytes have (as the service reads it), the rules are
// checked, the body is normalized and its JSON measured. The studio adds
// the size rule and the price; a form adds what it measured of each file.
func Prepare(op api.Operation, body map[string]any) (Ready, error) {
	body, _ = Relabel(op, body)
	r := Ready{Errors: Validate(op, body), Body: Normalize(op, body)}
	n, err := BodySize(r.Body)
	if err != nil {
		return Ready{}, err
	}
	r.Size = n
	return r, nil
}
