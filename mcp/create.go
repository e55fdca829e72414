package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/studio"
)

// ToolName is the create tool of an operation: create_ and the operation
// with '-' as '_' (create_start_end2video, create_premium_mv).
func ToolName(op api.Operation) string {
	return "create_" + strings.ReplaceAll(string(op), "-", "_")
}

// parseOperation accepts an operation as the service spells it, with '_'
// for '-' or as its tool is named (create_start_end2video).
func parseOperation(name string) (api.Operation, error) {
	op, err := api.ParseOperation(strings.TrimPrefix(name, "create_"))
	if err != nil {
		return "", fmt.Errorf("operation: %w", err)
	}
	return op, nil
}

func (s *Server) addCreateTools() {
	if s.opts.Compact {
		s.addCompactCreate()
		return
	}
	for _, op := range api.Operations() {
		info := catalog.Info(op)
		desc := info.Title + "."
		if slices.ContainsFunc(catalog.FieldNames(op), func(name string) bool {
			f, _ := catalog.FieldOf(op, name)
			return f.Kind == catalog.KindMediaList || f.Kind == catalog.KindSubjects
		}) {
			desc += " Media: URLs, data URIs or local paths."
		}
		// Marshalled once: tools/list then copies bytes instead of walking
		// nineteen schemas again on every listing.
		schema, err := json.Marshal(operationSchema(op))
		if err != nil {
			panic(err) // built from the catalog: a defect every test catches
		}
		// No output schema: the answer's shape (created) is the same for
		// all nineteen, and would be listed nineteen times.
		// No title either: the description starts with it.
		t := &sdk.Tool{Name: ToolName(op), Description: desc, InputSchema: json.RawMessage(schema), Annotations: spends}
		if s.wants(SetCreation, t) {
			s.sdk.AddTool(t, s.createHandler(func(raw json.RawMessage) (api.Operation, map[string]any, error) {
				body, err := decodeRequest(raw)
				return op, body, err
			}))
		}
	}
}

// createHandler takes the raw arguments: the catalog, not the schema, is
// the judge, so that a refusal is the catalog's message naming the field.
func (s *Server) createHandler(read func(json.RawMessage) (api.Operation, map[string]any, error)) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		op, body, err := read(req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		out, ask, err := s.create(ctx, req, op, body)
		switch {
		case err != nil:
			return toolError(err), nil
		case ask != nil:
			return ask, nil
		}
		return result(out)
	}
}

// created is create_*'s answer.
type created struct {
	TaskID    string `json:"task_id"`
	LocalID   int64  `json:"local_id"`
	Operation string `json:"operation"`
	Model     string `json:"model,omitempty"`
	State     string `json:"state"`
	Price     string `json:"price"`
	Credits   int64  `json:"credits,omitempty"` // as the service echoed them
	AudioURL  string `json:"audio_url,omitempty"`
	VoiceID   string `json:"voice_id,omitempty"`
	Preview   string `json:"preview_url,omitempty"`
	Follow    string `json:"follow"`
	Warning   string `json:"warning,omitempty"`
}

// prepare turns an agent's request into the body to send through the
// studio's one preparation path (local files read, every rule checked,
// normalised, sized and priced). Nothing is sent.
func (s *Server) prepare(op api.Operation, body map[string]any) (map[string]any, studio.Price, error) {
	p, err := s.studio.PrepareWithin(op, body, ".", s.allowFile)
	if err != nil {
		return nil, studio.Price{}, fmt.Errorf("%s request not sent: %w", op, err)
	}
	if p.Errors != nil {
		return nil, studio.Price{}, refusal{op: op, errs: p.Errors}
	}
	if p.TooLarge != "" {
		return nil, studio.Price{}, fmt.Errorf("%s request not sent: %s", op, p.TooLarge)
	}
	return p.Body, p.Price, nil
}

// create sends an agent's request, or answers ask: the question the
// person must answer first (see confirm).
func (s *Server) create(ctx context.Context, req *sdk.CallToolRequest, op api.Operation, body map[string]any) (c created, ask *sdk.CallToolResult, err error) {
	body, price, err := s.prepare(op, body)
	if err != nil {
		return created{}, nil, err
	}
	// Asked before the lock: the person may take a while, and other
	// agents' sends need not wait for them.
	if ask, err := s.confirm(ctx, req, "a "+string(op)+" request", price); ask != nil || err != nil {
		return created{}, ask, err
	}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if err := s.studio.CheckAgentCap(ctx, price); err != nil {
		return created{}, nil, err
	}
	sub, err := s.studio.Submit(ctx, op, body)
	if err != nil {
		return created{}, nil, submitError(err)
	}
	t := sub.Task
	state := t.State
	if state == "" {
		state = api.StateCreated
	}
	model, _ := body["model"].(string)
	out := created{TaskID: api.CleanText(t.Identifier()), LocalID: sub.LocalID, Operation: string(op), Model: model,
		State: api.CleanText(state), Price: price.Text, Credits: int64(t.Credits), AudioURL: api.CleanText(t.FileURL),
		VoiceID: api.CleanText(t.VoiceID), Preview: api.CleanText(t.DemoAudio), Follow: follow(t.Identifier())}
	if sub.Warning != nil {
		out.Warning = api.CleanText(sub.Warning.Error())
	}
	return out, nil, nil
}

// refusal lists every rule a request breaks, one per line, in the
// catalog's words (each names its field).
type refusal struct {
	op   api.Operation
	errs catalog.Errors
}

func (r refusal) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s request not sent (nothing was spent): %s", r.op, textutil.Plural(len(r.errs), "problem"))
	for _, e := range r.errs {
		b.WriteString("\n  ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// submitError explains a send that failed and what history kept of it.
func submitError(err error) error {
	var se *studio.SubmitError
	if errors.As(err, &se) && errors.Is(err, studio.ErrOutcomeUnknown) {
		return fmt.Errorf("%s. History keeps the request as #%d, outcome unknown: do not send it again before checking "+
			"(clapper history resolve %d TASK_ID attaches the task, clapper history abandon %d gives up)", api.CleanText(err.Error()), se.LocalID, se.LocalID, se.LocalID)
	}
	if e, ok := api.AsError(err); ok {
		return fmt.Errorf("the service refused the request: %s (%s)", api.CleanText(err.Error()), e.Explanation())
	}
	return errors.New(api.CleanText(err.Error()))
}

// decodeRequest reads tool arguments as a request object, numbers kept as
// written (json.Number) like every other front end.
func decodeRequest(raw json.RawMessage) (map[string]any, error) {
	body := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return body, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, fmt.Errorf("arguments: want a JSON object of request fields")
	}
	return body, nil
}

func toolError(err error) *sdk.CallToolResult {
	r := &sdk.CallToolResult{}
	r.SetError(err)
	return r
}

// result answers a create in words and as structured JSON.
func result(c created) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: c.summary()}}, StructuredContent: json.RawMessage(b)}, nil
}

// addCompactCreate lists one create tool for every operation: a fraction
// of nineteen schemas, for clients that pay for every listed byte. The
// rules are describe_operation's; the catalog judges the request as for
// create_<operation>.
func (s *Server) addCompactCreate() {
	var ops []any
	for _, op := range api.Operations() {
		ops = append(ops, string(op))
	}
	in := &jsonschema.Schema{Type: "object", Required: []string{"operation", "request"}, Properties: map[string]*jsonschema.Schema{
		"operation": {Type: "string", Enum: ops, Description: "what to make ('_' for '-' works too)"},
		"request":   {Type: "object", Description: "the request's fields; describe_operation gives each model's fields and rules"},
	}}
	t := &sdk.Tool{Name: "create", Title: "Make something", InputSchema: in, OutputSchema: outputSchema[created](), Annotations: spends,
		Description: "Sends a creation request of any operation. Call describe_operation first for the model's fields and rules, " +
			"validate_request to check it and see its price."}
	if !s.wants(SetCreation, t) {
		return
	}
	s.sdk.AddTool(t, s.createHandler(func(raw json.RawMessage) (api.Operation, map[string]any, error) {
		var in struct {
			Operation string          `json:"operation"`
			Request   json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return "", nil, errors.New("arguments: want {\"operation\": ..., \"request\": {...}}")
		}
		op, err := parseOperation(in.Operation)
		if err != nil {
			return "", nil, err
		}
		body, err := decodeRequest(in.Request)
		if err != nil {
			return "", nil, fmt.Errorf("request: %w", err)
		}
		return op, body, nil
	}))
}
