package api

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// guardRedirects makes the client refuse every redirect that leaves the
// origin of the first request. Go's client keeps the Authorization header
// when only the port or the scheme changes (it compares host names), so a
// redirect to another port or to plain http would carry the API key there.
// The caller's client is copied, never changed.
func guardRedirects(h *http.Client) *http.Client {
	cp := *h
	next := h.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := sameOrigin(req, via[0]); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

// RedirectError is a redirect refused because it leaves the service's
// origin; What says what changed (scheme, host or port).
type RedirectError struct {
	From, To string // scheme://host:port of each side
	What     string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirect refused: it changes the %s (%s to %s); the API key is only sent to the service address configured", e.What, e.From, e.To)
}

// sameOrigin reports a redirect that changes the scheme, host or port.
func sameOrigin(req, first *http.Request) error {
	a, b := first.URL, req.URL
	ap, bp := portOf(a.Scheme, a.Port()), portOf(b.Scheme, b.Port())
	origin := func(scheme, host, port string) string {
		return CleanText(scheme + "://" + net.JoinHostPort(host, port))
	}
	e := &RedirectError{From: origin(a.Scheme, a.Hostname(), ap), To: origin(b.Scheme, b.Hostname(), bp)}
	switch {
	case a.Scheme != b.Scheme:
		e.What = "scheme"
	case !strings.EqualFold(a.Hostname(), b.Hostname()):
		e.What = "host"
	case ap != bp:
		e.What = "port"
	default:
		return nil
	}
	return e
}

func portOf(scheme, port string) string {
	if port != "" {
		return port
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}
