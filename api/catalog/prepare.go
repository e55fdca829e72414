package catalog

import (
	"clapper/api"
	"fmt"
)

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
	if errs := oversizeText(op, body); errs != nil {
		// Refused before anything copies it: a 30 MB prompt would be
		// normalized, measured and priced whole first.
		return Ready{Body: body, Errors: errs}, nil
	}
	body, _ = Relabel(op, body)
	r := Ready{Errors: Validate(op, body), Body: Normalize(op, body)}
	n, err := BodySize(r.Body)
	if err != nil {
		return Ready{}, err
	}
	r.Size = n
	return r, nil
}

// oversizeText is the text fields of body longer than their bound could be
// in any case (more bytes than four a character), said as Validate says it.
func oversizeText(op api.Operation, body map[string]any) Errors {
	var errs Errors
	for name, v := range body {
		str, ok := v.(string)
		if !ok {
			continue
		}
		f, known := FieldOf(op, name)
		if !known || f.MaxChars <= 0 || len(str) <= 4*f.MaxChars {
			continue
		}
		errs = append(errs, FieldError{name, api.ReasonFieldInvalid,
			fmt.Sprintf("%s: at most %d characters, got %s of text", name, f.MaxChars, api.ByteSize(int64(len(str))))})
	}
	return errs
}
