package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/record"
)

func newVoicesCmd(app *App) *cobra.Command {
	var (
		asJSON, expiring, system bool
		within                   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "voices",
		Short: "List cloned voices and when they expire",
		Long: "Lists the cloned voices in history. The service deletes a cloned voice 168 hours after " +
			"cloning unless speech synthesis (audio-tts) used it by then; a voice used in time is kept " +
			"for good and no longer counts down. A voice forgotten on the Voices page is not listed.\n\n" +
			"With --expiring, for cron or scripts: lists only the voices the service deletes within " +
			"--within (default 24h) unless they are used, and exits 1 when there is any, 0 when there " +
			"is none (printing nothing), 3 when the history cannot be read. Kept voices never expire; voices already deleted are not " +
			"listed, as nothing can save them any more (plain clapper voices shows them as expired).",
		Example: "  clapper voices\n" +
			"  clapper voices --expiring --within 48h --json\n" +
			"  clapper voices --expiring; [ $? -eq 1 ] && notify-send 'voices expire'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("within") && !expiring {
				return usageError("--within goes with --expiring")
			}
			if within <= 0 {
				return usageError("--within must be a positive duration, e.g. 24h or 90m")
			}
			if system {
				if expiring {
					return usageError("--system lists the service's own voices, which never expire; leave out --expiring")
				}
				return writeSystemVoices(app.Out, asJSON)
			}
			// With --expiring, 1 says a voice expires: a history that
			// cannot be read is another status, or cron would warn of
			// voices when the database is down.
			unread := func(err error) error {
				if expiring {
					return &ExitError{Code: exitUnknown, Err: err}
				}
				return err
			}
			store, err := app.openStore(cmd.Context())
			if err != nil {
				return unread(err)
			}
			defer store.Close()
			all, err := store.Voices(cmd.Context())
			if err != nil {
				return unread(err)
			}
			now := app.now()
			var voices []record.Voice
			for _, v := range all {
				if !v.Deleted && (!expiring || v.Expiring(now, within)) {
					voices = append(voices, v)
				}
			}
			switch {
			case expiring && len(voices) == 0:
				return nil
			case asJSON:
				err = writeVoicesJSON(app.Out, voices, now)
			default:
				err = writeVoices(app.Out, voices, now, !expiring)
			}
			if err == nil && expiring {
				verb := "expire"
				if len(voices) == 1 {
					verb = "expires"
				}
				err = &ExitError{Code: 1, Err: fmt.Errorf("%s %s within %s unless used in speech synthesis", textutil.Plural(len(voices), "voice"), verb, shortDuration(within))}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "Print one JSON object per line")
	f.BoolVar(&expiring, "expiring", false, "Only voices deleted within --within unless\nused; exit 1 when there is any, 3 when the\nhistory cannot be read")
	f.DurationVar(&within, "within", 24*time.Hour, "With --expiring: how far ahead to look")
	f.BoolVar(&system, "system", false, "List the service's system voices, usable by\nid without cloning")
	return cmd
}

// writeSystemVoices lists the service's own voices.
func writeSystemVoices(w io.Writer, asJSON bool) error {
	if asJSON {
		for _, v := range catalog.SystemVoices {
			if err := writeJSON(w, map[string]any{"voice_id": v.ID, "description": v.Description, "system": true}, false); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SYSTEM VOICE ID\tWHAT IT SOUNDS LIKE")
	for _, v := range catalog.SystemVoices {
		fmt.Fprintf(tw, "%s\t%s\n", v.ID, v.Description)
	}
	return tw.Flush()
}

// voiceLine is a voice in --json output. expires_at is absent for a kept
// voice: the service never deletes it.
type voiceLine struct {
	VoiceID    string `json:"voice_id"`
	CreatedAt  string `json:"created_at"`
	LastUsedAt string `json:"last_used_at,omitempty"`
	LastUsedBy string `json:"last_used_by,omitempty"`
	ExpiresAt  string `json:"expires_at,omitempty"`
	Kept       bool   `json:"kept"`
	Expired    bool   `json:"expired"`
	DemoAudio  string `json:"demo_audio,omitempty"`
	CloneTask  string `json:"clone_task_id,omitempty"`
}

func writeVoicesJSON(w io.Writer, voices []record.Voice, now time.Time) error {
	for _, v := range voices {
		l := voiceLine{VoiceID: v.VoiceID, CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), Kept: v.Kept,
			Expired: v.Expired(now), DemoAudio: v.DemoAudio, CloneTask: v.CloneTaskID, LastUsedBy: v.LastUsedBy}
		if !v.Kept {
			l.ExpiresAt = v.ExpiresAt.UTC().Format(time.RFC3339)
		}
		if !v.LastUsedAt.IsZero() {
			l.LastUsedAt = v.LastUsedAt.UTC().Format(time.RFC3339)
		}
		if err := writeJSON(w, l, false); err != nil {
			return err
		}
	}
	return nil
}

// writeVoices prints the table; explain adds the rule under it.
func writeVoices(w io.Writer, voices []record.Voice, now time.Time, explain bool) error {
	if len(voices) == 0 {
		_, err := fmt.Fprintln(w, "No cloned voices yet. Clone one with: clapper create audio-clone --set audio_url=URL --set voice_id=NAME")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VOICE ID\tCLONED\tLAST USED\tDELETED BY THE SERVICE")
	for _, v := range voices {
		used := "never"
		if !v.LastUsedAt.IsZero() {
			used = v.LastUsedAt.Local().Format("2006-01-02 15:04")
			if v.LastUsedBy != "" {
				used += " by " + api.CleanText(v.LastUsedBy)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", api.CleanText(v.VoiceID), v.CreatedAt.Local().Format("2006-01-02 15:04"), used, expiry(v, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !explain {
		return nil
	}
	_, err := fmt.Fprintln(w, "\nA voice used in speech synthesis (audio-tts) within 168 hours of its cloning is kept for good.")
	return err
}

func expiry(v record.Voice, now time.Time) string {
	switch {
	case v.Kept:
		return "never (kept: used in time)"
	case v.Expired(now):
		return "expired " + v.ExpiresAt.Local().Format("2006-01-02 15:04")
	}
	left := v.ExpiresAt.Sub(now)
	s := v.ExpiresAt.Local().Format("2006-01-02 15:04")
	if left < 24*time.Hour {
		return fmt.Sprintf("%s (in %s: use it soon)", s, left.Round(time.Minute))
	}
	return fmt.Sprintf("%s (in %d days)", s, int(left.Hours()/24))
}

// shortDuration reads 24h, 90m, 1h30m rather than 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
