package catalog

import (
	"strings"

	"clapper/api"
)

// FieldError is one broken rule, named by the field it concerns. Reason is
// the service's reason code for it (FieldLacking, FieldUnwanted,
// FieldItemCountOutOfRange, FieldInvalid, ImageFormatInvalid).
type FieldError struct {
	Field   string
	Reason  string
	Message string // starts with the field name and says what is allowed
}

func (e FieldError) Error() string { return e.Message }

// Errors are all the rules a request breaks, in field order.
type Errors []FieldError

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "; ")
}

// Fields lists the distinct fields named, in order.
func (es Errors) Fields() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range es {
		if !seen[e.Field] {
			seen[e.Field] = true
			out = append(out, e.Field)
		}
	}
	return out
}

// APIError renders the errors as the service's rejection (status 400, the
// reason of the first error), the way the sandbox answers them.
func (es Errors) APIError() *api.Error {
	if len(es) == 0 {
		return nil
	}
	return &api.Error{Status: 400, Reason: es[0].Reason, Message: es.Error(), Fields: es.Fields()}
}
