package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api/catalog"
	"clapper/studio"
)

type validateIn struct {
	Operation string         `json:"operation" jsonschema:"e.g. text2video, start-end2video"`
	Request   map[string]any `json:"request" jsonschema:"the fields, as the create tool takes them"`
}

type problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type verdict struct {
	Operation string    `json:"operation"`
	Valid     bool      `json:"valid"`
	Problems  []problem `json:"problems,omitempty"`
	Price     string    `json:"price,omitempty"`
	Credits   *int64    `json:"credits,omitempty"`
	// Spending is where the caps stand and whether a send would pass one.
	Spending *spendingOut `json:"spending,omitempty"`
	// Confirm says a create would ask the person first, and why.
	Confirm string `json:"confirm,omitempty"`
	Note    string `json:"note"`
}

// spendingOut is the credit caps an agent's send is held to, as they
// stand: Refused is the refusal a send would get now ("" when it fits).
type spendingOut struct {
	Text    string           `json:"text"`
	Caps    []studio.CapRoom `json:"caps"`
	Refused string           `json:"refused,omitempty"`
}

type describeIn struct {
	Operation string `json:"operation" jsonschema:"e.g. reference2video"`
	Model     string `json:"model,omitempty" jsonschema:"one model only; empty: all"`
}

func (s *Server) addCatalogTools() {
	add(s, SetCreation, &sdk.Tool{Name: "validate_request", Title: "Check a request", Annotations: readsHistory,
		Description: "Checks a request against its model's rules and prices it; says where the credit caps stand and whether " +
			"a send would be refused or ask the person first. Sends nothing."},
		s.validate)
	add(s, SetCreation, &sdk.Tool{Name: "describe_operation", Title: "An operation's rules", Annotations: readsHistory,
		Description: "An operation's rules, model by model and field by field."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in describeIn) (*sdk.CallToolResult, rulesOut, error) {
			op, err := parseOperation(in.Operation)
			if err != nil {
				return nil, rulesOut{}, err
			}
			var only []string
			if in.Model != "" {
				only = []string{in.Model}
			}
			rules, err := catalog.Describe(op, only...)
			return nil, rulesOut{rules}, err
		})
}

func (s *Server) validate(ctx context.Context, req *sdk.CallToolRequest, in validateIn) (*sdk.CallToolResult, verdict, error) {
	op, err := parseOperation(in.Operation)
	if err != nil {
		return nil, verdict{}, err
	}
	raw, err := json.Marshal(in.Request)
	if err != nil {
		return nil, verdict{}, fmt.Errorf("request: want a JSON object of request fields")
	}
	body, err := decodeRequest(raw) // numbers as written, as create_* reads them
	if err != nil {
		return nil, verdict{}, fmt.Errorf("request: want a JSON object of request fields")
	}
	v := verdict{Operation: string(op), Valid: true, Note: "nothing was sent"}
	_, price, err := s.prepare(op, body)
	var r refusal
	switch {
	case asRefusal(err, &r):
		v.Valid = false
		for _, e := range r.errs {
			v.Problems = append(v.Problems, problem{Field: e.Field, Message: e.Message})
		}
		return nil, v, nil
	case err != nil:
		v.Valid = false
		v.Problems = []problem{{Message: err.Error()}}
		return nil, v, nil
	}
	v.Price = price.Text
	if price.Known {
		v.Credits = &price.Credits
	}
	rooms, err := s.studio.CapRooms(ctx)
	if err != nil {
		return nil, verdict{}, err
	}
	sp := &spendingOut{Text: "no credit cap is set", Caps: rooms}
	if len(rooms) > 0 {
		parts := make([]string, len(rooms))
		for i, r := range rooms {
			parts[i] = r.String()
		}
		sp.Text = strings.Join(parts, "; ")
	}
	if err := s.studio.CheckAgentCap(ctx, price); err != nil {
		sp.Refused = err.Error()
	}
	v.Spending = sp
	if why := s.askWhy(price, rooms); why != "" {
		v.Confirm = "a create would ask the person first, because " + why
		if !canAsk(req.Session) && !s.opts.Consent.Unasked {
			v.Confirm += "; this client cannot ask (no MCP elicitation), so it would be refused"
		}
	}
	return nil, v, nil
}

func asRefusal(err error, r *refusal) bool {
	if x, ok := err.(refusal); ok {
		*r = x
		return true
	}
	return false
}
