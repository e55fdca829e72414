package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	for _, op := range api.Operations() {
		info := catalog.Info(op)
		desc := fmt.Sprintf("%s (POST %s). Every field any model takes is listed; each description states the rules, "+
			"model by model where they differ. The request is checked against the model's rules before anything is "+
			"sent: a broken rule is refused naming the field, and no credit is spent. Answers the task id, the price "+
			"and how to follow it.", info.Title, op.Path())
		// Marshalled once: tools/list then copies bytes instead of walking
		// fourteen schemas again on every listing.
		schema, err := json.Marshal(operationSchema(op))
		if err != nil {
			panic(err) // built from the catalog: a defect every test catches
		}
		s.sdk.AddTool(&sdk.Tool{Name: ToolName(op), Title: info.Title, Description: desc, InputSchema: json.RawMessage(schema),
			Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(true)}}, s.createHandler(op))
	}
}

// createHandler takes the raw arguments: the catalog, not the schema, is
// the judge, so that a refusal is the catalog's message naming the field.
func (s *Server) createHandler(op api.Operation) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		body, err := decodeRequest(req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		out, err := s.create(ctx, op, body)
		if err != nil {
			return toolError(err), nil
		}
		return result(out.summary(), out)
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

func (c created) summary() string {
	return fmt.Sprintf("%s task %s: %s. Price: %s. Follow it with %s.", c.Operation, c.TaskID, c.State, c.Price, c.Follow)
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

func (s *Server) create(ctx context.Context, op api.Operation, body map[string]any) (created, error) {
	body, price, err := s.prepare(op, body)
	if err != nil {
		return created{}, err
	}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if err := s.studio.CheckAgentCap(ctx, price); err != nil {
		return created{}, err
	}
	sub, err := s.studio.Submit(ctx, op, body)
	if err != nil {
		return created{}, submitError(err)
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
	return out, nil
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

// result answers a text for people and the same answer as structured JSON.
func result(text string, v any) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text + "\n" + string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}
