package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api/catalog"
)

type validateIn struct {
	Operation string         `json:"operation" jsonschema:"the operation, e.g. text2video or start-end2video (start_end2video also works)"`
	Request   map[string]any `json:"request" jsonschema:"the request fields, as create_<operation> takes them"`
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
	Note      string    `json:"note"`
}

type describeIn struct {
	Operation string `json:"operation" jsonschema:"the operation, e.g. reference2video"`
	Model     string `json:"model,omitempty" jsonschema:"one model's rules only; empty gives every model's"`
}

func (s *Server) addCatalogTools() {
	addTool(s.sdk, &sdk.Tool{Name: "validate_request", Title: "Check a request",
		Description: "Checks a creation request against every rule of its operation and model and prices it. Nothing is sent.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in validateIn) (*sdk.CallToolResult, verdict, error) {
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
			case err != nil:
				v.Valid = false
				v.Problems = []problem{{Message: err.Error()}}
			default:
				v.Price = price.Text
			}
			return nil, v, nil
		})
	addTool(s.sdk, &sdk.Tool{Name: "describe_operation", Title: "An operation's rules",
		Description: "The rules of an operation's models, field by field (kind, required, default, options, ranges, counts, help), as `clapper models --json` gives them.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in describeIn) (*sdk.CallToolResult, catalog.OperationRules, error) {
			op, err := parseOperation(in.Operation)
			if err != nil {
				return nil, catalog.OperationRules{}, err
			}
			var only []string
			if in.Model != "" {
				only = []string{in.Model}
			}
			rules, err := catalog.Describe(op, only...)
			return nil, rules, err
		})
}

func asRefusal(err error, r *refusal) bool {
	if x, ok := err.(refusal); ok {
		*r = x
		return true
	}
	return false
}
