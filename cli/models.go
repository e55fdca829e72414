package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/catalog"
)

func newModelsCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "models [OPERATION]",
		Short: "List operations, models and their fields",
		Long: "Lists the operations, what each makes and its models; with an OPERATION, every model's " +
			"fields with their defaults, options and ranges (--json: the same rules as JSON).",
		Example:     "  clapper models\n  clapper models reference2video\n  clapper models audio-tts --json",
		Args:        cobra.MaximumNArgs(1),
		ValidArgs:   operationNames(),
		Annotations: map[string]string{offline: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			ops := api.Operations()
			if len(args) == 1 {
				op, err := api.ParseOperation(args[0])
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				ops = []api.Operation{op}
			}
			if asJSON {
				return writeCatalogJSON(app.Out, ops)
			}
			narrow := isNarrow(app.Out)
			if len(args) == 0 {
				return writeOperationList(app.Out, narrow)
			}
			return writeOperation(app.Out, ops[0], narrow)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the rules as JSON")
	return cmd
}

func operationNames() []string {
	var out []string
	for _, op := range api.Operations() {
		out = append(out, string(op))
	}
	return out
}

// isNarrow reports a terminal too narrow for one line per field; output to
// a file or a pipe keeps one line per field for scripts.
func isNarrow(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	width, _, err := term.GetSize(f.Fd())
	return err == nil && width < 140
}

func writeOperationList(w io.Writer, narrow bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if narrow {
		fmt.Fprintln(tw, "OPERATION\tWHAT IT MAKES")
	} else {
		fmt.Fprintln(tw, "OPERATION\tWHAT IT MAKES\tMODELS")
	}
	for _, op := range api.Operations() {
		info := catalog.Info(op)
		models := strings.Join(modelsWithLayers(op, info.Models), ", ")
		switch {
		case narrow && models != "":
			fmt.Fprintf(tw, "%s\t%s\n\tmodels: %s\n", op, info.Title, models)
		case narrow:
			fmt.Fprintf(tw, "%s\t%s\n", op, info.Title)
		default:
			if models == "" {
				models = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", op, info.Title, models)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nclapper models OPERATION shows each model's fields, defaults and options.")
	return err
}

// modelsWithLayers marks the models a later layer added: "svcq2 [service]".
func modelsWithLayers(op api.Operation, models []string) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m
		if l := catalog.ModelSource(op, m); l != catalog.LayerSpec {
			out[i] += " [" + string(l) + "]"
		}
	}
	return out
}

func writeOperation(w io.Writer, op api.Operation, narrow bool) error {
	info := catalog.Info(op)
	fmt.Fprintf(w, "%s: %s\nPOST %s\n", op, info.Title, op.Path())
	if gone, cite := catalog.Retired(op); len(gone) > 0 {
		fmt.Fprintf(w, "retired: %s (%s; catalog.json can bring it back)\n", strings.Join(gone, ", "), cite)
	}
	models := info.Models
	if models == nil {
		models = []string{""}
	}
	for _, m := range models {
		spec, err := catalog.Lookup(op, m)
		if err != nil {
			return err
		}
		var cites sources
		if m != "" {
			fmt.Fprintf(w, "\nmodel %s (%s%s)\n", m, spec.Source, cites.mark(spec.Cite))
		} else {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range spec.Fields {
			if f.Name == "model" {
				continue
			}
			// A user's catalog file wrote the help, options and sources.
			rules, layer, help := api.CleanText(f.Describe()), string(f.Source)+cites.mark(f.Cite), api.CleanText(f.Help)
			if narrow {
				fmt.Fprintf(tw, "  %s\t%s\t[%s]\n  \t%s\n", f.Name, rules, layer, help)
			} else {
				fmt.Fprintf(tw, "  %s\t%s\t[%s]\t%s\n", f.Name, rules, layer, help)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for i, c := range cites {
			fmt.Fprintf(w, "  %d: %s\n", i+1, api.CleanText(c))
		}
	}
	return nil
}

// sources numbers where one model's rules beyond the spec were read (the
// service notes' section and which of its sources), each once: a rule
// shows its number beside its layer, "[service 2]", and the model's list
// ends with what each number stands for.
type sources []string

func (s *sources) mark(cite string) string {
	if cite == "" {
		return ""
	}
	i := slices.Index(*s, cite)
	if i < 0 {
		*s = append(*s, cite)
		i = len(*s) - 1
	}
	return fmt.Sprintf(" %d", i+1)
}

func writeCatalogJSON(w io.Writer, ops []api.Operation) error {
	var out []catalog.OperationRules
	for _, op := range ops {
		rules, err := catalog.Describe(op)
		if err != nil {
			return err
		}
		out = append(out, rules)
	}
	return writeJSON(w, out, true)
}
