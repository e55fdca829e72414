package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/record"
)

type tagOpts struct {
	note      string
	noteGiven bool // --note "" removes the note; no --note keeps it
	clear     bool
}

// newTagCmd sets what the user says about a task: tags to find it again
// (tag:NAME in clapper history --search, the TUI's filters, list_tasks)
// and a note. It is the detail's t in the TUI.
func newTagCmd(app *App) *cobra.Command {
	var o tagOpts
	cmd := &cobra.Command{
		Use:   "tag # [TAG...]",
		Short: "Tag a task and give it a note",
		Long: "Gives the task numbered # (the first column of clapper history) the tags listed, in\n" +
			"place of its tags, and with --note a note in place of its note. A tag is\n" +
			record.TagRule + ", kept in lower case.\n" +
			"With no tag, --note or --clear it prints the task's tags and note.\n" +
			"Find tagged tasks with: clapper history --search tag:NAME",
		Example: "  clapper tag 12 keeper client-a\n  clapper tag 12 --note \"best seed so far\"\n" +
			"  clapper tag 12 --clear\n  clapper history --search \"tag:keeper tag:client-a\"",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("tag needs the # of a task (from clapper history), then its tags; see clapper tag --help")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.noteGiven = cmd.Flags().Changed("note")
			return app.onLocalTask(func(ctx context.Context, store record.Store, localID int64, args []string) error {
				return app.tagTask(ctx, store, localID, args[1:], o)
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&o.note, "note", "", "A note in place of the task's note (\"\" removes it)")
	cmd.Flags().BoolVar(&o.clear, "clear", false, "Remove every tag of the task")
	return cmd
}

func (app *App) tagTask(ctx context.Context, store record.Store, localID int64, words []string, o tagOpts) error {
	t, err := store.Task(ctx, localID)
	if err != nil {
		return app.explainConflict(ctx, store, localID, err, "tagged", "tasks")
	}
	if o.clear && len(words) > 0 {
		return usageError("--clear removes every tag: give tags or --clear, not both")
	}
	tags, note := t.Tags, t.Note
	if len(words) > 0 || o.clear {
		if tags, err = record.ParseTags(strings.Join(words, " ")); err != nil {
			return usageError("%v", err)
		}
	}
	if o.noteGiven {
		if note, err = record.CleanNote(o.note); err != nil {
			return usageError("--note: %v", err)
		}
	}
	if len(words) > 0 || o.clear || o.noteGiven {
		if err := store.SetLabels(ctx, localID, tags, note); err != nil {
			return app.explainConflict(ctx, store, localID, err, "tagged", "tasks")
		}
	}
	slices.Sort(tags)
	shown := "no tags"
	if len(tags) > 0 {
		shown = "tags " + strings.Join(tags, ", ")
	}
	if note != "" {
		shown += "; note: " + api.CleanText(note)
	}
	_, err = fmt.Fprintf(app.Out, "request %d: %s\n", localID, shown)
	return err
}
