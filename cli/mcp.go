package cli

import (
	"github.com/spf13/cobra"

	"clapper/studio"
)

func newMCPCmd(app *App) *cobra.Command {
	var (
		httpAddr   string
		dailyCap   string
		mediaRoots []string
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tools to AI agents (MCP)",
		Long: "Serves clapper's tools to an AI assistant (Claude, Cursor, VS Code, ...) over the Model Context " +
			"Protocol: create_<operation> for every operation with the catalog's rules as input schemas, " +
			"validate_request, describe_operation, get_task, wait_task, list_tasks, download_results, " +
			"list_voices, get_scenes, edit_scene and compose_scenes. It runs on the same backend, settings " +
			"and history as the terminal studio, which shows an agent's tasks live (marked mcp).\n\n" +
			"By default it speaks over standard input and output, as MCP clients launch it. With --http it " +
			"serves streamable HTTP on a loopback address only, and prints a bearer token every request " +
			"must carry.\n\n" +
			"--daily-cap bounds what agent tasks may cost per local day (env " + studio.EnvAgentCreditCap +
			", or the Settings page; default no cap): a send that would pass it is refused, saying the cap " +
			"and today's total.\n\n" +
			"An agent reads local files only from the download folders and the folders given with " +
			"--media-root; a path elsewhere is refused by its name, without a look at what is there.",
		Example: "  clapper mcp\n" +
			"  clapper mcp --daily-cap 500\n" +
			"  clapper mcp --http 127.0.0.1:8765\n" +
			"  clapper mcp --media-root ~/Pictures/refs\n" +
			"  claude mcp add clapper -- clapper mcp --daily-cap 500",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if app.RunMCP == nil {
				return usageError("this build has no MCP server")
			}
			cfg := app.Config
			cfg.MediaRoots = mediaRoots
			if cmd.Flags().Changed("daily-cap") {
				n, err := studio.ParseCreditCap(dailyCap)
				if err != nil {
					return usageError("--daily-cap %q: %v", dailyCap, err)
				}
				cfg.AgentCreditCap = n
			}
			err := app.RunMCP(cmd.Context(), cfg, httpAddr)
			if studio.IsUsage(err) {
				return &ExitError{Code: 2, Err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "", "Serve streamable HTTP on this loopback\naddress (e.g. 127.0.0.1:8765) instead of stdio")
	f.StringVar(&dailyCap, "daily-cap", "", "Credits agent tasks may cost per day; 0 or\noff for no cap (env "+studio.EnvAgentCreditCap+")")
	f.StringArrayVar(&mediaRoots, "media-root", nil, "A folder whose files an agent may send (as\noften as needed; the download folders always)")
	return cmd
}
