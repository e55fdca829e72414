package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/history"
)

func newVoicesCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "voices",
		Short: "List cloned voices and when they expire",
		Long: "Lists cloned voices with their expiry: the service deletes a voice that speech synthesis " +
			"(audio-tts) has not used for 168 hours.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := app.openStore()
			if err != nil {
				return err
			}
			defer store.Close()
			voices, err := store.Voices(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeVoicesJSON(app.Out, voices)
			}
			return writeVoices(app.Out, voices, time.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print one JSON object per line")
	return cmd
}

type voiceLine struct {
	VoiceID    string `json:"voice_id"`
	CreatedAt  string `json:"created_at"`
	LastUsedAt string `json:"last_used_at,omitempty"`
	ExpiresAt  string `json:"expires_at"`
	Expired    bool   `json:"expired"`
	DemoAudio  string `json:"demo_audio,omitempty"`
	CloneTask  string `json:"clone_task_id,omitempty"`
}

func writeVoicesJSON(w io.Writer, voices []history.Voice) error {
	now := time.Now()
	for _, v := range voices {
		l := voiceLine{VoiceID: v.VoiceID, CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), ExpiresAt: v.ExpiresAt.UTC().Format(time.RFC3339),
			Expired: v.Deleted || v.Expired(now), DemoAudio: v.DemoAudio, CloneTask: v.CloneTaskID}
		if !v.LastUsedAt.IsZero() {
			l.LastUsedAt = v.LastUsedAt.UTC().Format(time.RFC3339)
		}
		if err := writeJSON(w, l, false); err != nil {
			return err
		}
	}
	return nil
}

func writeVoices(w io.Writer, voices []history.Voice, now time.Time) error {
	if len(voices) == 0 {
		_, err := fmt.Fprintln(w, "No cloned voices yet. Clone one with: clapper create audio-clone --set audio_url=URL --set voice_id=NAME")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VOICE ID\tCLONED\tLAST USED\tEXPIRES")
	for _, v := range voices {
		used := "never"
		if !v.LastUsedAt.IsZero() {
			used = v.LastUsedAt.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", api.CleanText(v.VoiceID), v.CreatedAt.Local().Format("2006-01-02 15:04"), used, expiry(v, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nUsing a voice in speech synthesis (audio-tts) keeps it another 168 hours.")
	return err
}

func expiry(v history.Voice, now time.Time) string {
	if v.Deleted || v.Expired(now) {
		return "expired (deleted by the service)"
	}
	left := v.ExpiresAt.Sub(now)
	s := v.ExpiresAt.Local().Format("2006-01-02 15:04")
	switch {
	case left < 24*time.Hour:
		return fmt.Sprintf("%s (in %s, use it soon)", s, left.Round(time.Minute))
	default:
		return fmt.Sprintf("%s (in %d days)", s, int(left.Hours()/24))
	}
}
