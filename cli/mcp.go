package cli

import (
	"github.com/spf13/cobra"

	"clapper/studio"
)

// MCPOptions are how `clapper mcp` serves: on stdio, or streamable HTTP
// on a loopback address, with the tool list narrowed by toolsets and
// tools, to the read-only tools, or to one create tool.
type MCPOptions struct {
	HTTP            string
	Toolsets, Tools []string
	ReadOnly        bool
	Compact         bool
}

func newMCPCmd(app *App) *cobra.Command {
	var (
		o            MCPOptions
		dailyCap     string
		confirmAbove string
		unconfirmed  bool
		mediaRoots   []string
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tools to AI agents (MCP)",
		Long: "Serves clapper's tools to an AI assistant (Claude, Cursor, VS Code, ...) over the Model Context " +
			"Protocol: create_<operation> for every operation with the catalog's rules as input schemas, " +
			"validate_request, describe_operation, get_task, wait_task, list_tasks, download_results, " +
			"cancel_task, list_voices, get_scenes, edit_scene, compose_scenes and get_account; every task as a " +
			"resource (clapper://task/{id}) a client can subscribe to, every saved result as one; and three " +
			"prompts (clip_from_idea, storyboard, clone_then_speak). It runs on the same backend, settings " +
			"and history as the terminal studio, which shows an agent's tasks live (marked mcp).\n\n" +
			"By default it speaks over standard input and output, as MCP clients launch it. With --http it " +
			"serves streamable HTTP on a loopback address only, and prints a bearer token every request " +
			"must carry.\n\n" +
			"The tool list: --toolsets (creation, tasks, voices, scenes, account) and --tools (tool names) " +
			"keep only those; --read-only keeps only the tools that change nothing; --compact lists one " +
			"create tool for every operation instead of fourteen (the rules come from describe_operation).\n\n" +
			"Spending: --daily-cap bounds what agent tasks may cost per local day (env " + studio.EnvAgentCreditCap +
			", or the Settings page; default no cap): a send that would pass it is refused, saying the cap " +
			"and today's total. A send above --confirm-above credits (default 100; env " + studio.EnvAgentConfirm +
			"), or one that takes a credit cap past 80 %, asks the person through the client first (MCP " +
			"elicitation); a client that cannot ask is refused, saying why, unless --unconfirmed.\n\n" +
			"An agent reads local files only from the download folders and the folders given with " +
			"--media-root (or the Settings page's agent folders); a path elsewhere is refused by its name, " +
			"without a look at what is there.",
		Example: "  clapper mcp\n" +
			"  clapper mcp --daily-cap 500 --confirm-above 50\n" +
			"  clapper mcp --toolsets creation,tasks --compact\n" +
			"  clapper mcp --read-only\n" +
			"  clapper mcp --http 127.0.0.1:8765\n" +
			"  clapper mcp --media-root ~/Pictures/refs\n" +
			"  claude mcp add clapper -- clapper mcp --daily-cap 500",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if app.RunMCP == nil {
				return usageError("this build has no MCP server")
			}
			cfg := app.Config
			cfg.MediaRoots = append(cfg.MediaRoots, mediaRoots...)
			cfg.AgentUnconfirmed = cfg.AgentUnconfirmed || unconfirmed
			if cmd.Flags().Changed("daily-cap") {
				n, err := studio.ParseCreditCap(dailyCap)
				if err != nil {
					return usageError("--daily-cap %q: %v", dailyCap, err)
				}
				cfg.AgentCreditCap = n
			}
			if cmd.Flags().Changed("confirm-above") {
				n, err := studio.ParseCreditCap(confirmAbove)
				if err != nil {
					return usageError("--confirm-above %q: %v", confirmAbove, err)
				}
				cfg.AgentConfirmAbove, cfg.AgentConfirmAboveGiven = n, true
			}
			err := app.RunMCP(cmd.Context(), cfg, o)
			if studio.IsUsage(err) {
				return &ExitError{Code: 2, Err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.HTTP, "http", "", "Serve streamable HTTP on this loopback\naddress (e.g. 127.0.0.1:8765) instead of stdio")
	f.StringSliceVar(&o.Toolsets, "toolsets", nil, "List only these toolsets: creation, tasks,\nvoices, scenes, account")
	f.StringSliceVar(&o.Tools, "tools", nil, "List only these tools (with --toolsets: these too)")
	f.BoolVar(&o.ReadOnly, "read-only", false, "List only the tools that change nothing\n(nothing that spends, saves or cancels)")
	f.BoolVar(&o.Compact, "compact", false, "One create tool {operation, request} instead of\none per operation")
	f.StringVar(&dailyCap, "daily-cap", "", "Credits agent tasks may cost per day; 0 or\noff for no cap (env "+studio.EnvAgentCreditCap+")")
	f.StringVar(&confirmAbove, "confirm-above", "", "Ask the person before a send of more credits\nthan this; 0 or off asks only near a cap\n(default 100; env "+studio.EnvAgentConfirm+")")
	f.BoolVar(&unconfirmed, "unconfirmed", false, "Let a send that should ask go on when the\nclient cannot ask")
	f.StringArrayVar(&mediaRoots, "media-root", nil, "A folder whose files an agent may send (as\noften as needed; the download folders always)")
	return cmd
}
