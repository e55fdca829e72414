package studio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"clapper/api"
)

// A refused key and a service out of reach are named; a refusal of one
// request, or a read the person cancelled, says nothing of the link.
func TestHealthOfAFailedRead(t *testing.T) {
	for err, want := range map[error]string{
		&api.Error{Status: 401, Reason: api.ReasonUnauthorized}:                                          KeyRefused,
		fmt.Errorf("credits: %w", &api.Error{Status: 403, Reason: api.ReasonForbidden}):                  KeyRefused,
		&api.NetworkError{Method: "GET", Path: "/ent/v2/credits", Err: errors.New("connection refused")}: Unreachable,
		&api.Error{Status: 502, Reason: "BadGateway"}:                                                    Unreachable,
		context.DeadlineExceeded:                                Unreachable,
		&api.Error{Status: 400, Reason: api.ReasonFieldInvalid}: "",
		&api.Error{Status: 404, Reason: "TaskNotFound"}:         "",
		context.Canceled:                                        "",
		nil:                                                     "",
	} {
		if got := HealthOf(err); got != want {
			t.Errorf("%v: %q, want %q", err, got, want)
		}
	}
}

// A cap's refusal reads as a sentence whatever it priced: "these
// variations cost", "this batch costs".
func TestCapRefusalAgreesWithWhatItPriced(t *testing.T) {
	for sending, want := range map[string]string{
		"these variations": "; these variations cost 76 more",
		"this batch":       "; this batch costs 76 more",
		"":                 "; this request costs 76 more",
	} {
		e := &CapError{Cap: 100, Spent: 50, Price: Price{Known: true, Credits: 76}, Period: "day", Sending: sending, Setting: "x"}
		if !strings.Contains(e.Error(), want) {
			t.Errorf("%q: %s", sending, e.Error())
		}
	}
}
