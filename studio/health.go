package studio

import (
	"context"
	"errors"

	"clapper/api"
)

// What a failed read of the service says of the link to it, for the
// header's badge: the key was refused, or the service could not be
// reached (or answered only with its own failures). A refusal of one
// request (a field, a task unknown) says nothing of the link: "".
const (
	KeyRefused  = "KEY REFUSED"
	Unreachable = "UNREACHABLE"
)

// HealthOf names what a failed read says of the link to the service.
func HealthOf(err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return ""
	}
	if e, ok := api.AsError(err); ok {
		switch {
		case e.Status == 401 || e.Status == 403 || e.Reason == api.ReasonUnauthorized || e.Reason == api.ReasonForbidden:
			return KeyRefused
		case e.Status >= 500 || e.Status == 0:
			return Unreachable
		}
		return ""
	}
	var ne *api.NetworkError
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return Unreachable
	}
	return ""
}
