package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// variations makes the versions of one checked request: count versions
// with distinct random seeds, or one per value of a --vary field=a,b,c
// (typed by the catalog as --set types a value), with the studio's rules.
// Every version is checked; all broken ones are listed and none is kept.
func variations(cfg studio.Config, op api.Operation, body map[string]any, count int, vary string) ([]studio.SetRequest, error) {
	if count != 0 && vary != "" {
		return nil, usageError("--variations and --vary: give one (seeds, or the values of one field)")
	}
	if count != 0 {
		out, err := studio.SeedVariations(op, body, count)
		if err != nil {
			return nil, usageError("--variations: %v", err)
		}
		return out, nil
	}
	name, list, ok := strings.Cut(vary, "=")
	if !ok || name == "" || list == "" {
		return nil, usageError("--vary %q: want field=a|b|c, or field=a,b,c when no value holds a comma (one version per value)", vary)
	}
	out, err := studio.ValueVariations(cfg, op, body, name, studio.SplitValues(list), func(v map[string]any, field, value string) error {
		return applySet(op, v, field+"="+value, false)
	})
	var broken *studio.VariationsError
	switch {
	case errors.As(err, &broken):
		return nil, &ExitError{Code: 2, Err: err}
	case err != nil:
		return nil, &ExitError{Code: 2, Err: fmt.Errorf("--vary: %w", err)}
	}
	return out, nil
}

// createSet sends the versions of one request as a set in history, at most
// five at the service at once, and with --wait follows all to their end
// and saves their results.
func (app *App) createSet(ctx context.Context, op api.Operation, versions []studio.SetRequest, o createOpts) error {
	if o.dryRun {
		for _, v := range versions {
			fmt.Fprintf(app.Out, "# version %d: %s\n", v.Line, api.CleanText(v.Label))
			raw, err := json.Marshal(v.Body)
			if err != nil {
				return err
			}
			if err := writeDryRun(app.Out, raw); err != nil {
				return err
			}
		}
		return nil
	}
	s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir, NoDownload: o.noDownload})
	if err != nil {
		return err
	}
	defer s.Close()
	if !o.caps.over {
		if err := s.CheckSpendCaps(ctx, s.SetPrice(versions), "these variations"); err != nil {
			return capRefused(err)
		}
	} else {
		ctx = studio.OverCap(ctx)
	}
	setID, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", fmt.Sprintf("%s, %d versions", op, len(versions)), studio.SetMembers(versions))
	if err != nil {
		return err
	}
	run, sum, err := app.runSet(ctx, s, setID, "variations", versions, o.json, !o.wait)
	if err != nil {
		return err
	}
	if o.wait && !o.noDownload {
		for _, v := range versions {
			taskID, res := run.Result(v.Line)
			if res == nil || len(res.Creations) == 0 {
				continue
			}
			if err := app.download(ctx, s, taskID, res, o); err != nil {
				return err
			}
		}
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%s of %d failed", textutil.Plural(sum.Failed, "version"), len(versions))
	}
	return nil
}
