package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Toolsets group the tools for --toolsets; --tools names single tools.
const (
	SetCreation = "creation" // create_* (or create), validate_request, describe_operation
	SetTasks    = "tasks"    // get_task, wait_task, list_tasks, download_results, cancel_task
	SetVoices   = "voices"   // list_voices
	SetScenes   = "scenes"   // get_scenes, edit_scene, compose_scenes
	SetAccount  = "account"  // get_account
)

// Toolsets are the toolsets in the order help lists them.
var Toolsets = []string{SetCreation, SetTasks, SetVoices, SetScenes, SetAccount}

// Annotations say what a tool does to the world, so that a client can
// ask before the ones that spend or destroy. Every tool carries one of
// these; none leaves a hint to the protocol's defaults (which assume a
// tool destroys and reaches the world).
var (
	// readsHistory reads the user's history and nothing else.
	readsHistory = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	// readsService reads the service (the account, a task's state).
	readsService = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)}
	// spends sends a request that costs credits; it destroys nothing.
	spends = &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(true)}
	// saves writes a task's files into the download folders, again and
	// again to the same files.
	saves = &sdk.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(true)}
	// cancels ends a task at the service for good.
	cancels = &sdk.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(true)}
)

// summarizer is a tool's answer that says itself in words: the text beside
// the structured answer, for the person and for clients that read only
// text, so that no answer is the same JSON twice.
type summarizer interface{ summary() string }

// wants reports whether the options list a tool: every tool by default,
// else those of the named toolsets and the named tools; --read-only keeps
// only the tools that change nothing.
func (s *Server) wants(set string, t *sdk.Tool) bool {
	s.known[t.Name] = true
	listed := !(s.opts.ReadOnly && !t.Annotations.ReadOnlyHint) &&
		((len(s.opts.Toolsets) == 0 && len(s.opts.Tools) == 0) || slices.Contains(s.opts.Toolsets, set) || slices.Contains(s.opts.Tools, t.Name))
	if listed {
		s.listedNames[t.Name] = true
	}
	return listed
}

// add lists a tool of a toolset whose answer has a fixed shape: its
// output schema is inferred from Out, its text is Out's summary.
func add[In any, Out summarizer](s *Server, set string, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	if !s.wants(set, t) {
		return
	}
	if t.OutputSchema == nil {
		t.OutputSchema = outputSchema[Out]()
	}
	if t.InputSchema == nil {
		in, err := jsonschema.For[In](nil)
		if err != nil {
			panic(err) // a fixed type: a defect every test catches
		}
		// Lenient as create_*: a field the tool does not take is ignored,
		// and the listing is the shorter for not saying so.
		in.AdditionalProperties = nil
		t.InputSchema = in
	}
	sdk.AddTool(s.sdk, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if err == nil && res == nil {
			res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.summary()}}}
		}
		return res, out, err
	})
}

// checkNames refuses toolsets and tools the server does not have, naming
// the ones it has.
func (s *Server) checkNames() error {
	for _, set := range s.opts.Toolsets {
		if !slices.Contains(Toolsets, set) {
			return fmt.Errorf("--toolsets: no toolset %q; choose from %s", set, strings.Join(Toolsets, ", "))
		}
	}
	for _, name := range s.opts.Tools {
		if !s.known[name] {
			names := make([]string, 0, len(s.known))
			for n := range s.known {
				names = append(names, n)
			}
			slices.Sort(names)
			hint := ""
			if strings.HasPrefix(name, "create_") && s.opts.Compact {
				hint = " (with --compact the create tools are one: create)"
			}
			return fmt.Errorf("--tools: no tool %q%s; choose from %s", name, hint, strings.Join(names, ", "))
		}
	}
	return nil
}

// outputSchema is Out's schema as clients need it to read an answer:
// each field and its type. Nested objects are typed but not spelled out
// (the answer's text says them), and neither required fields nor the
// absence of others is asserted: every listing sends every output
// schema, and clients compile each one.
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err) // a fixed type: a defect every test catches
	}
	return slim(s, 0)
}

func slim(s *jsonschema.Schema, depth int) *jsonschema.Schema {
	out := &jsonschema.Schema{Type: s.Type}
	if len(s.Types) > 0 {
		// ["null", T] is a slice or pointer the answer leaves out when
		// empty (omitempty): T is what it holds when present.
		for _, t := range s.Types {
			if t != "null" {
				out.Type = t
			}
		}
	}
	if depth >= 1 && out.Type == "object" {
		return out
	}
	if s.Items != nil {
		out.Items = slim(s.Items, depth+1)
	}
	if len(s.Properties) > 0 {
		out.Properties = map[string]*jsonschema.Schema{}
		for name, p := range s.Properties {
			out.Properties[name] = slim(p, depth+1)
		}
	}
	return out
}
