package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/record"
	"clapper/scenes"
	"clapper/studio"
)

func newScenesCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		// JOB_ID is named in the long help: the root's command column is
		// as wide as its widest entry, and it must fit 80 columns.
		Use:   "scenes",
		Short: "Show, edit and compose a multi-scene job",
		Long: "clapper scenes JOB_ID reads a multi-scene (general_one_click) job from the service and shows its scenes, each " +
			"scene's versions with their states, the version chosen for the cut (marked *: the newest " +
			"successful one unless you chose another in the Scenes page), and its compositions. " +
			"--json prints the service's record, job_records as the service gave them, plus " +
			"chosen_job_ids. Without the service, the record history holds is shown.",
		Example: "  clapper scenes 812345678901234567 --json\n" +
			"  clapper scenes edit 812345678901234567 \\\n" +
			"      --scene-job 812345678901234570 --prompt 'the boat at dusk' --wait\n" +
			"  clapper scenes compose 812345678901234567 --download",
		Args: exactArgs(1, "a multi-scene job id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return app.withScenes(cmd.Context(), false, func(st *studio.Studio) error {
				return app.showJob(cmd.Context(), st.Scenes(), args[0], asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the job record as JSON")
	cmd.AddCommand(newScenesEditCmd(app), newScenesComposeCmd(app))
	return cmd
}

func newScenesEditCmd(app *App) *cobra.Command {
	var sceneJob, prompt string
	var wait bool
	var caps capFlags
	cmd := &cobra.Command{
		Use:   "edit JOB_ID",
		Short: "Make one scene again from a new prompt",
		Long: "Asks the service to make one scene of a multi-scene job again from a new prompt (at most " +
			"3000 characters). SCENE_JOB_ID is any version of the scene (clapper scenes JOB_ID lists " +
			"them). The new version is printed with its name (scene 2 v3) and price and kept in history; " +
			"--wait follows it until it ends (exit 1 when it fails). An edit is charged like a new scene: " +
			"one that would pass the daily or monthly credit cap is refused (exit 2) unless --over-cap.",
		Args: exactArgs(1, "a multi-scene job id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sceneJob == "" || prompt == "" {
				return usageError("scenes edit needs --scene-job and --prompt; see clapper scenes edit --help")
			}
			if err := caps.apply(cmd, &app.Config); err != nil {
				return err
			}
			ctx := cmd.Context()
			return app.withScenes(ctx, wait, func(st *studio.Studio) error {
				price := st.SceneEditPrice(ctx, args[0], sceneJob)
				if !caps.over {
					if err := st.CheckSpendCaps(ctx, price, "this scene edit"); err != nil {
						return capRefused(err)
					}
				}
				s := st.Scenes()
				id, err := s.Edit(ctx, args[0], sceneJob, prompt)
				if err != nil {
					return scenesError(err)
				}
				fmt.Fprintf(app.Out, "scene version %s: created%s; cost %s\n", id, versionName(ctx, s, args[0], id), price.Text)
				if !wait {
					return nil
				}
				_, err = app.waitVersion(ctx, s, args[0], id)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&sceneJob, "scene-job", "", "A version of the scene to make again")
	cmd.Flags().StringVar(&prompt, "prompt", "", "The scene's new prompt")
	cmd.Flags().BoolVar(&wait, "wait", false, "Follow the new version until it ends")
	caps.add(cmd)
	return cmd
}

// versionName is " as scene 2 v3" for a version history holds, else "".
func versionName(ctx context.Context, s *scenes.Service, jobID, id string) string {
	j, err := s.Load(ctx, jobID)
	if err != nil {
		return ""
	}
	rec, _, ok := scenes.Find(j, id)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" as scene %d %s", rec.Index+1, scenes.VersionLabel(rec, id))
}

func newScenesComposeCmd(app *App) *cobra.Command {
	var (
		ids            []string
		wait, download bool
		dir            string
		caps           capFlags
	)
	cmd := &cobra.Command{
		Use:   "compose JOB_ID",
		Short: "Compose the chosen versions of the scenes",
		Long: "Asks the service to compose a multi-scene job from one version per scene: those given " +
			"with --jobs, else the chosen version of every scene. --wait follows the composition " +
			"until it ends (exit 1 when it fails); --download (which waits) then saves the video, " +
			"re-reading its signed URL first: it lives under three minutes. A composition that would " +
			"pass the daily or monthly credit cap is refused (exit 2) unless --over-cap.",
		Args: exactArgs(1, "a multi-scene job id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			wait = wait || download
			if err := caps.apply(cmd, &app.Config); err != nil {
				return err
			}
			return app.withScenes(cmd.Context(), wait, func(st *studio.Studio) error {
				price := st.ScenePrice(false, 0)
				if !caps.over {
					if err := st.CheckSpendCaps(cmd.Context(), price, "this composition"); err != nil {
						return capRefused(err)
					}
				}
				s := st.Scenes()
				id, sent, err := s.Compose(cmd.Context(), args[0], ids)
				if err != nil {
					return scenesError(err)
				}
				fmt.Fprintf(app.Out, "composition %s: created from %s; cost %s\n", id, strings.Join(sent, ", "), price.Text)
				if !wait {
					return nil
				}
				if _, err := app.waitVersion(cmd.Context(), s, args[0], id); err != nil || !download {
					return err
				}
				path, err := s.Download(cmd.Context(), args[0], id, dir)
				if err != nil {
					return downloadStopped(cmd.Context(), args[0], err)
				}
				fmt.Fprintf(app.Out, "saved %s\n", path)
				return nil
			})
		},
	}
	cmd.Flags().StringSliceVar(&ids, "jobs", nil, "Scene versions to compose, one per scene")
	cmd.Flags().BoolVar(&wait, "wait", false, "Follow the composition until it ends")
	cmd.Flags().BoolVar(&download, "download", false, "Wait, then save the composed video")
	cmd.Flags().StringVar(&dir, "download-dir", "", "With --download: save it here (default\n"+downloadDirHint+")")
	caps.add(cmd)
	return cmd
}

// withScenes runs fn on the scenes work of this command's backend; with
// follow, the studio's watcher runs meanwhile (and callbacks are received
// if set up).
func (app *App) withScenes(ctx context.Context, follow bool, fn func(*studio.Studio) error) error {
	s, err := app.open(ctx, studio.Options{SendOnly: !follow})
	if err != nil {
		return err
	}
	defer s.Close()
	if follow {
		s.Follow(ctx)
	}
	return fn(s)
}

// waitVersion follows a version to its end, printing its states; a failed
// version is exit 1 with its error and what it means.
func (app *App) waitVersion(ctx context.Context, s *scenes.Service, jobID, id string) (record.SubJob, error) {
	v, err := s.Wait(ctx, jobID, id, func(v record.SubJob, readErr error) {
		if readErr != nil {
			fmt.Fprintf(app.Err, "  reading job %s failed (%s); retrying\n", jobID, api.CleanText(readErr.Error()))
			return
		}
		fmt.Fprintf(app.Err, "  %s: %s\n", app.now().Format("15:04:05"), api.DescribeState(v.State))
	})
	switch {
	case ctx.Err() != nil:
		return v, &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped waiting for %s; clapper watch follows it, clapper scenes %s shows it", id, jobID)}
	case err != nil:
		return v, err
	case v.State != api.StateSuccess:
		return v, fmt.Errorf("%s %s%s", id, api.DescribeState(v.State), failure(v))
	}
	return v, nil
}

// failure is a failed version's error code, its meaning and message.
func failure(v record.SubJob) string {
	if v.ErrCode == "" && v.ErrMsg == "" {
		return ""
	}
	s := ": " + api.CleanText(v.ErrCode)
	if v.ErrMsg != "" {
		s += " (" + api.CleanText(v.ErrMsg) + ")"
	}
	if v.ErrCode != "" {
		s += "\n  " + api.Explain(v.ErrCode, 0)
	}
	return s
}

// scenesError makes a refusal before sending a usage error (exit 2) and
// explains a rejection by the service.
func scenesError(err error) error {
	var ie *scenes.InputError
	if errors.As(err, &ie) {
		return &ExitError{Code: 2, Err: err}
	}
	return studio.DescribeAPIError(err)
}

func (app *App) showJob(ctx context.Context, s *scenes.Service, jobID string, asJSON bool) error {
	j, err := s.Refresh(ctx, jobID)
	if err != nil {
		held, herr := s.Store.Job(ctx, jobID)
		if herr != nil {
			return studio.DescribeAPIError(err)
		}
		fmt.Fprintf(app.Err, "clapper: could not read job %s from the service (%s); showing history's record of %s\n",
			jobID, api.CleanText(err.Error()), held.FetchedAt.Local().Format("2006-01-02 15:04:05"))
		j = held
	}
	if asJSON {
		return writeJobJSON(app.Out, j)
	}
	return writeScenes(app.Out, j, app.now())
}

// writeJobJSON prints the service's record as received, plus the chosen
// version of each scene ("" for a scene without a successful version).
func writeJobJSON(w io.Writer, j record.Job) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(j.Raw, &obj); err != nil {
		return writeRaw(w, j.Raw)
	}
	chosen := make([]string, len(j.Scenes))
	for i, rec := range j.Scenes {
		if v, _, ok := scenes.Chosen(j, rec); ok {
			chosen[i] = v.ID
		}
	}
	obj["chosen_job_ids"], _ = json.Marshal(chosen)
	return writeJSON(w, obj, false)
}

func writeScenes(w io.Writer, j record.Job, now time.Time) error {
	var b strings.Builder
	c := api.CleanText
	fmt.Fprintf(&b, "job %s: %s, %d scenes", c(j.ID), api.DescribeState(j.State), len(j.Scenes))
	if j.SignedURL != "" {
		fmt.Fprintf(&b, ", composed video (URL valid %s)", until(now, j.SignedURLExpiresAt))
	}
	b.WriteString("\n")
	if j.ErrCode != "" || j.ErrMsg != "" {
		fmt.Fprintf(&b, "  error%s\n", failure(record.SubJob{ErrCode: j.ErrCode, ErrMsg: j.ErrMsg}))
	}
	for _, rec := range j.Scenes {
		chosen, byUser, _ := scenes.Chosen(j, rec)
		cur := rec.Current()
		fmt.Fprintf(&b, "\nscene %d  %ds  %s\n", rec.Index+1, cur.Duration, api.DescribeState(cur.State))
		if cur.LyricText != "" {
			fmt.Fprintf(&b, "  lyric: %s\n", c(cur.LyricText))
		}
		for i, v := range rec.Jobs {
			mark := " "
			if v.ID == chosen.ID {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %s v%d %s  %s  %s\n", mark, i+1, c(v.ID), api.DescribeState(v.State), stamp(v.CreatedAt))
			fmt.Fprintf(&b, "      %s\n", c(v.Prompt))
			writeVersionExtras(&b, v)
		}
		if byUser {
			b.WriteString("  (* chosen by you)\n")
		}
	}
	for _, rec := range j.Compose {
		b.WriteString("\ncompositions\n")
		for i, v := range rec.Jobs {
			fmt.Fprintf(&b, "    v%d %s  %s  %s\n", i+1, c(v.ID), api.DescribeState(v.State), stamp(v.CreatedAt))
			if ids := scenes.ComposedInput(v); len(ids) > 0 {
				fmt.Fprintf(&b, "      of %s\n", c(strings.Join(ids, ", ")))
			}
			writeVersionExtras(&b, v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeVersionExtras(b *strings.Builder, v record.SubJob) {
	if v.ErrCode != "" || v.ErrMsg != "" {
		fmt.Fprintf(b, "      failed%s\n", strings.ReplaceAll(failure(v), "\n  ", "\n      "))
	}
	if d := v.Download; d != nil && d.Status == record.DownloadDone {
		fmt.Fprintf(b, "      saved %s\n", api.CleanText(d.Path))
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// until says how long a signed URL stays valid.
func until(now, t time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "no longer: clapper re-reads the job before any use"
	}
	return "for " + d.String()
}
