package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/studio"
)

func newSubjectsCmd(app *App) *cobra.Command {
	var asJSON, refresh bool
	cmd := &cobra.Command{
		Use:   "subjects",
		Short: "List, create and edit stored subjects",
		Long: "Stored subjects are kept by the service and named in reference2video as\n" +
			"{\"name\": ..., \"server_id\": ID}. clapper keeps a library of those it created or read;\n" +
			"--refresh reads the account's subjects from the service first.",
		Example: "  clapper subjects --refresh\n" +
			"  clapper subjects create mia --image mia.png --voice lovely_girl\n" +
			"  clapper subjects edit sbs123 --style watercolour --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var list []record.Subject
			var err error
			if refresh {
				s, oerr := app.open(cmd.Context(), studio.Options{SendOnly: true})
				if oerr != nil {
					return oerr
				}
				defer s.Close()
				list, err = s.SyncSubjects(cmd.Context())
			} else {
				store, oerr := app.openStore(cmd.Context())
				if oerr != nil {
					return oerr
				}
				defer store.Close()
				list, err = store.Subjects(cmd.Context())
			}
			if err != nil {
				return err
			}
			if asJSON {
				for _, sb := range list {
					if err := writeJSON(app.Out, subjectJSON(sb), false); err != nil {
						return err
					}
				}
				return nil
			}
			return writeSubjects(app.Out, list)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print one JSON object per line")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "Read the account's subjects from the service first")
	cmd.AddCommand(newSubjectSaveCmd(app, false), newSubjectSaveCmd(app, true))
	return cmd
}

// subjectFlags are the fields a subject is created or edited with.
type subjectFlags struct {
	name, voice, style, description string
	images, videos                  []string
	asJSON                          bool
}

func newSubjectSaveCmd(app *App, edit bool) *cobra.Command {
	var f subjectFlags
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Store a subject: 1-3 images, a voice",
		Args:  exactArgs(1, "the subject's name"),
	}
	if edit {
		cmd.Use, cmd.Short, cmd.Args = "edit ID", "Change a stored subject's fields", exactArgs(1, "the subject's id")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		body, err := f.body(cmd, edit)
		if err != nil {
			return err
		}
		if !edit {
			body["name"] = args[0]
		}
		if errs := catalog.SubjectSpec(edit).Validate(body); errs != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("subject not sent: %v", errs)}
		}
		s, err := app.open(cmd.Context(), studio.Options{SendOnly: true})
		if err != nil {
			return err
		}
		defer s.Close()
		var sb *record.Subject
		if edit {
			sb, err = s.UpdateSubject(cmd.Context(), args[0], body)
		} else {
			sb, err = s.CreateSubject(cmd.Context(), body)
		}
		if err != nil {
			return studio.DescribeAPIError(err)
		}
		if f.asJSON {
			return writeJSON(app.Out, subjectJSON(*sb), false)
		}
		_, err = fmt.Fprintf(app.Out, "subject %s (%s) stored; use it in reference2video as {\"name\": %q, \"server_id\": %q}\n",
			api.CleanLine(sb.Name), sb.ID, sb.Name, sb.ID)
		return err
	}
	fl := cmd.Flags()
	if edit {
		fl.StringVar(&f.name, "name", "", "New name (at most 64 characters)")
	}
	fl.StringArrayVar(&f.images, "image", nil, "An image: a local file, an http(s) URL or an\nssupload: URI (repeat, at most 3)")
	fl.StringArrayVar(&f.videos, "video", nil, "A 5 s video (only svcq2-pro uses video subjects)")
	fl.StringVar(&f.voice, "voice", "", "A cloned or system voice id\n(clapper voices --system lists these)")
	fl.StringVar(&f.style, "style", "", "Style (at most 100 characters)")
	fl.StringVar(&f.description, "description", "", "Description (at most 2000 characters)")
	fl.BoolVar(&f.asJSON, "json", false, "Print the stored subject as JSON")
	return cmd
}

// body is the request the flags give; local files become data URIs, and
// on edit only the flags given are sent.
func (f *subjectFlags) body(cmd *cobra.Command, edit bool) (map[string]any, error) {
	body := map[string]any{}
	media := func(list []string, m catalog.Media) ([]any, error) {
		out := make([]any, 0, len(list))
		for _, v := range list {
			if catalog.IsLocalPath(v) {
				uri, err := catalog.FileToDataURI(v, m)
				if err != nil {
					return nil, &ExitError{Code: 2, Err: err}
				}
				v = uri
			}
			out = append(out, v)
		}
		return out, nil
	}
	changed := cmd.Flags().Changed
	if changed("image") || !edit {
		imgs, err := media(f.images, catalog.MediaImage)
		if err != nil {
			return nil, err
		}
		if len(imgs) > 0 || edit {
			body["images"] = imgs
		}
	}
	if changed("video") {
		vids, err := media(f.videos, catalog.MediaVideo)
		if err != nil {
			return nil, err
		}
		body["videos"] = vids
	}
	for flag, field := range map[string]struct {
		key string
		v   string
	}{"name": {"name", f.name}, "voice": {"voice_id", f.voice}, "style": {"style", f.style}, "description": {"description", f.description}} {
		if changed(flag) {
			body[field.key] = field.v
		}
	}
	if edit && len(body) == 0 {
		return nil, usageError("edit needs something to change: --name, --image, --video, --voice, --style or --description")
	}
	return body, nil
}

type subjectLine struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Images      []string `json:"images"`
	Videos      []string `json:"videos"`
	VoiceID     string   `json:"voice_id,omitempty"`
	Style       string   `json:"style,omitempty"`
	Description string   `json:"description,omitempty"`
	UpdatedAt   string   `json:"updated_at"`
}

func subjectJSON(sb record.Subject) subjectLine {
	return subjectLine{ID: sb.ID, Name: sb.Name, Images: orNone(sb.Images), Videos: orNone(sb.Videos), VoiceID: sb.VoiceID,
		Style: sb.Style, Description: sb.Description, UpdatedAt: sb.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z")}
}

func orNone(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func writeSubjects(w io.Writer, list []record.Subject) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no stored subjects yet: clapper subjects create NAME --image FILE (or --refresh to read the service's)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tIMAGES\tVOICE\tSTYLE")
	for _, sb := range list {
		voice := sb.VoiceID
		if voice == "" {
			voice = "-"
		} else if catalog.IsSystemVoice(voice) {
			voice += " (system)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", api.CleanLine(sb.Name), api.CleanLine(sb.ID), len(sb.Images), api.CleanLine(voice), api.CleanLine(sb.Style))
	}
	return tw.Flush()
}
