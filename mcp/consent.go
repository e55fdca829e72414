package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/studio"
)

// Consent says when an agent's send asks the person first, through the
// client (MCP elicitation): above a price, or when it would take a credit
// cap past NearCap of itself.
type Consent struct {
	// Above is the price in credits past which a send asks; 0 never asks
	// for the price alone.
	Above int64
	// Unasked lets a send that should ask go on when the client cannot
	// ask (it has no elicitation); else it is refused, saying why.
	Unasked bool
}

// nearCap is the share of a credit cap past which a send asks: the last
// fifth of a day's budget is the person's to spend, not the agent's.
const nearCap = 0.8

// askWhy says why a send priced p needs the person's yes ("" when it
// does not): its price, or a cap it takes near its end.
func (s *Server) askWhy(p studio.Price, rooms []studio.CapRoom) string {
	var why []string
	switch c := s.opts.Consent.Above; {
	case c <= 0:
	case !p.Known:
		// The service charges what it charges: the first send of its kind
		// may cost anything.
		why = append(why, fmt.Sprintf("its price is unknown (%s), and an agent may spend at most %d credits without asking (--confirm-above)", p.Text, c))
	case p.Credits > c:
		why = append(why, fmt.Sprintf("it costs %d credits, more than the %d an agent may spend without asking (--confirm-above)", p.Credits, c))
	}
	for _, r := range rooms {
		after := r.Spent
		if p.Known {
			after += p.Credits
		}
		if float64(after) > nearCap*float64(r.Cap) {
			why = append(why, fmt.Sprintf("it takes the credit cap for %s to %d of %d", capName(r), after, r.Cap))
		}
	}
	return strings.Join(why, "; and ")
}

func capName(r studio.CapRoom) string {
	what := "all work"
	if r.Scope != "" {
		what = r.Scope
	}
	if r.Period == "month" {
		return what + " this month"
	}
	return what + " today"
}

// errDeclined is a send the person said no to.
var errDeclined = errors.New("not sent: the person declined it (nothing was spent)")

// consentKey names the question in a call's input requests.
const consentKey = "consent"

// confirm asks the person, through the client, before a send priced p
// that askWhy names; what says what would be sent. The question is an
// input request of the call's result (multi round-trip: the client asks
// and calls again with the answer; with older clients the SDK asks on the
// server's side): ask is that result, to be answered as it is. A client
// that cannot ask gets a refusal naming why and what to change, unless
// Consent.Unasked.
func (s *Server) confirm(ctx context.Context, req *sdk.CallToolRequest, what string, p studio.Price) (ask *sdk.CallToolResult, err error) {
	rooms, err := s.studio.CapRooms(ctx)
	if err != nil {
		return nil, fmt.Errorf("not sent: %w", err)
	}
	why := s.askWhy(p, rooms)
	if why == "" {
		return nil, nil
	}
	if !canAsk(req.Session) {
		if s.opts.Consent.Unasked {
			return nil, nil
		}
		return nil, fmt.Errorf("not sent (nothing was spent): %s needs the person's yes because %s, and this client cannot ask "+
			"(it offers no MCP elicitation). Ask the person, who can raise --confirm-above, or run clapper mcp --unconfirmed", what, why)
	}
	if answer, ok := req.Params.InputResponses[consentKey]; ok {
		res, ok := answer.(*sdk.ElicitResult)
		if !ok || res.Action != "accept" || res.Content["send"] != true {
			return nil, errDeclined
		}
		return nil, nil
	}
	return &sdk.CallToolResult{RequestState: consentKey, InputRequests: sdk.InputRequestMap{consentKey: &sdk.ElicitParams{
		Message: fmt.Sprintf("An agent wants to send %s (%s). Asking because %s. Send it?", what, p.Text, why),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"send"},
			"properties": map[string]any{"send": map[string]any{"type": "boolean", "title": "Send it",
				"description": "Yes spends the credits; no sends nothing"}}},
	}}}, nil
}

// canAsk reports whether the client said it can ask its person (form
// elicitation) when it connected.
func canAsk(ss *sdk.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // no mode named is form, as the SDK reads it
}
