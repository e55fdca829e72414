// Package mcp is clapper's Model Context Protocol server (`clapper mcp`):
// the service's whole catalog for AI agents, over the studio like every
// front end, so that what an agent makes shows live in the creator's
// terminal studio and stays in the same history.
//
// Tools (names scripts and prompts rely on), in toolsets (tools.go):
//   - creation: create_<operation> for each of the nineteen operations ('-'
//     as '_'), whose input schema is generated from api/catalog (schema.go:
//     the union of the models' rules, the models that take less named in
//     the description; callback_url, payload and meta_data unlisted); the
//     catalog's Validate judges every request before anything is sent, and
//     a broken rule is a tool error naming the field; validate_request,
//     describe_operation. With Compact, one create {operation, request}.
//   - tasks: get_task, wait_task (progress every ProgressEvery: seconds
//     run of the usual time), list_tasks (the History page's search, paged
//     by cursor), download_results (the studio's downloader), cancel_task;
//   - voices: list_voices (cloned and system); account: get_account;
//   - scenes: get_scenes, edit_scene, compose_scenes.
//
// Every tool is annotated; every answer says itself in words (summary.go)
// beside its structured form, typed by an output schema on every tool but
// create_* (one shape, nineteen times). testdata/toolsnaps holds each
// tool's listing for review.
//
// Resources: clapper://task/{id} (subscribable: updated as the task moves),
// and saved results, covers and watermarked copies (resources.go), served
// only when their bytes are the media their name says and within
// MaxResourceBytes; larger ones are file:// links. Prompts: prompts.go.
//
// Every task an agent sends is recorded with origin mcp; sends are held
// to the agent's daily cap and the caps on all spending, checked under
// one lock and again in the transaction that records them. A send above
// Consent.Above, of unknown price, or taking a cap past 80 % asks the
// person first (consent.go).
package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/studio"
)

// Defaults of Options.
const (
	DefaultWait             = 50 * time.Second
	MaxWait                 = 10 * time.Minute
	DefaultDownloadWait     = 5 * time.Minute
	DefaultMaxResourceBytes = 4 << 20
	// DefaultProgressEvery keeps a client that resets its timeout on
	// progress waiting: the MCP clients' shortest default is 60 s.
	DefaultProgressEvery = 10 * time.Second
)

// Options tune a server; the zero value is production.
type Options struct {
	// Version is reported to clients as the server's version.
	Version string
	// Clock tells the time for voices' time left; nil is the wall clock.
	Clock func() time.Time
	// DownloadWait bounds how long download_results waits for the files.
	DownloadWait time.Duration
	// MaxResourceBytes bounds a file served as a resource.
	MaxResourceBytes int64
	// MediaRoots are the folders whose files an agent may have sent
	// (clapper mcp --media-root); the download folders always are.
	MediaRoots []string
	// Toolsets and Tools narrow the tool list to these toolsets and these
	// tools (--toolsets, --tools); neither lists every tool.
	Toolsets, Tools []string
	// ReadOnly lists only the tools that change nothing (--read-only).
	ReadOnly bool
	// Compact lists one create tool for every operation instead of one
	// per operation (--compact): the rules come from describe_operation.
	Compact bool
	// Consent says when a create asks the person first (elicitation).
	Consent Consent
	// ProgressEvery is how often a long tool tells its progress at the
	// least; 0 is DefaultProgressEvery.
	ProgressEvery time.Duration
}

// Server serves one studio's work as MCP tools.
type Server struct {
	studio *studio.Studio
	sdk    *sdk.Server
	opts   Options
	// roots are the folders an agent may have files read from, absolute,
	// links resolved.
	roots []string

	// known are the names of every tool, listed or not, for --tools;
	// listedNames those listed.
	known, listedNames map[string]bool
	// subs follows the tasks whose resources clients subscribed to.
	subs *subscriptions

	// sendMu makes the cap check and the send one step: two agent calls
	// at once cannot both pass a cap that only one of them fits under.
	sendMu sync.Mutex
}

// New builds the server and its tools over a studio that is open and
// Started with Options.NoEvents: tool calls wait on tasks with Await. A
// toolset or tool the server does not have is an error naming those it
// has.
func New(st *studio.Studio, o Options) (*Server, error) {
	if o.DownloadWait == 0 {
		o.DownloadWait = DefaultDownloadWait
	}
	if o.MaxResourceBytes == 0 {
		o.MaxResourceBytes = DefaultMaxResourceBytes
	}
	if o.ProgressEvery == 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{studio: st, opts: o, roots: mediaRoots(o.MediaRoots, st.DownloadFolders()), known: map[string]bool{}, listedNames: map[string]bool{}}
	s.subs = newSubscriptions(s)
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "clapper", Title: "clapper studio", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions, SubscribeHandler: s.subs.subscribe, UnsubscribeHandler: s.subs.unsubscribe})
	s.addCreateTools()
	s.addCatalogTools()
	s.addTaskTools()
	s.addAccountTools()
	s.addSceneTools()
	s.addResources()
	s.addPrompts()
	if err := s.checkNames(); err != nil {
		return nil, &studio.UsageError{Msg: err.Error()}
	}
	return s, nil
}

const instructions = "clapper creates videos, images and audio with the svc service. Call describe_operation " +
	"for an operation's rules model by model, validate_request to check a request and see its price without " +
	"sending it, then create_<operation>. Media fields take URLs, data URIs or local file paths (in the folders " +
	"the user allowed: the download folders and any --media-root). Follow a task " +
	"with wait_task (or get_task), then download_results saves its files locally. Everything lands in the " +
	"user's clapper history, where the terminal studio shows it live."

// SDK is the underlying MCP server (for transports and tests).
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one session over t (stdio for `clapper mcp`) until it ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.sdk.Run(ctx, t)
}

func (s *Server) now() time.Time {
	if s.opts.Clock != nil {
		return s.opts.Clock()
	}
	return time.Now()
}

// follow says where a task can be followed besides wait_task.
func follow(id string) string {
	return fmt.Sprintf("wait_task or get_task with task_id %s; in a terminal: clapper get %s, or the Tasks page of clapper", api.CleanText(id), api.CleanText(id))
}
