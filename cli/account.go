package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"clapper/studio"
)

func newAccountCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "account",
		Short: "Credits left and tasks running (a key check)",
		Long: "Reads the account from the service (GET /ent/v2/credits): the credits left and, when the\n" +
			"service tells them, the tasks running and queued and its concurrency limit. It is the\n" +
			"cheap way to check a key: a refused key exits 1 saying so.",
		Example: "  clapper account\n  clapper account --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := app.open(cmd.Context(), studio.Options{SendOnly: true})
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Account(cmd.Context())
			if err != nil {
				return studio.DescribeAPIError(err)
			}
			if asJSON {
				out := map[string]any{"remaining_credits": a.Remaining}
				if a.HasConcurrency {
					out["running"], out["queued"], out["concurrency_limit"] = a.Running, a.Queued, a.Limit
				}
				return writeJSON(app.Out, out, false)
			}
			fmt.Fprintf(app.Out, "credits left  %d\n", a.Remaining)
			if a.HasConcurrency {
				fmt.Fprintf(app.Out, "running       %d of %d at once\nqueued        %d\n", a.Running, a.Limit, a.Queued)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the account as one JSON object")
	return cmd
}
