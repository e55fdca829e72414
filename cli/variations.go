package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/history"
	"clapper/internal/textutil"
	"clapper/studio"
)

// maxVariations bounds --variations and --vary: a set is for choosing
// among versions, and each costs credits.
const maxVariations = 50

// variations makes the versions of one checked request: count versions
// with distinct random seeds, or one per value of a --vary field=a,b,c
// (typed by the catalog as --set types a value). Every version is checked;
// all broken ones are listed and none is kept.
func variations(op api.Operation, body map[string]any, count int, vary string) ([]setRequest, error) {
	if count != 0 && vary != "" {
		return nil, usageError("--variations and --vary: give one (seeds, or the values of one field)")
	}
	var out []setRequest
	if count != 0 {
		if count < 2 || count > maxVariations {
			return nil, usageError("--variations %d: give 2 to %d versions", count, maxVariations)
		}
		if _, takes := catalog.FieldOf(op, "seed"); !takes {
			return nil, usageError("--variations: %s has no seed field, so versions of one request would not differ; use --vary field=a,b,c", op)
		}
		seen := map[int64]bool{}
		for len(out) < count {
			// Seeds of 31 bits: every model reads them, and 0 means random.
			seed := rand.Int64N(1<<31-1) + 1
			if seen[seed] {
				continue
			}
			seen[seed] = true
			v := clone(body)
			v["seed"] = json.Number(fmt.Sprint(seed))
			out = append(out, setRequest{line: len(out) + 1, op: op, body: v, label: fmt.Sprintf("seed=%d", seed)})
		}
		return out, nil
	}
	name, list, ok := strings.Cut(vary, "=")
	if !ok || name == "" || list == "" {
		return nil, usageError("--vary %q: want field=a,b,c (one version per value)", vary)
	}
	values := strings.Split(list, ",")
	if len(values) < 2 || len(values) > maxVariations {
		return nil, usageError("--vary %s: give 2 to %d values, separated by commas", name, maxVariations)
	}
	var problems []string
	for i, value := range values {
		v := clone(body)
		delete(v, name) // the value replaces the field, a list field's items too
		label := name + "=" + value
		if err := applySet(op, v, label, false); err != nil {
			return nil, &ExitError{Code: 2, Err: fmt.Errorf("--vary: %w", err)}
		}
		if errs := catalog.Validate(op, v); errs != nil {
			for _, e := range errs {
				problems = append(problems, fmt.Sprintf("version %d (%s): %s", i+1, textutil.Clip(label, 40), e.Message))
			}
			continue
		}
		out = append(out, setRequest{line: i + 1, op: op, body: catalog.Normalize(op, v), label: label})
	}
	if problems != nil {
		return nil, &ExitError{Code: 2, Err: fmt.Errorf("%s variations not sent: %s\n  %s", op, textutil.Plural(len(problems), "problem"), strings.Join(problems, "\n  "))}
	}
	return out, nil
}

// clone copies a request's top level: a version changes one field.
func clone(body map[string]any) map[string]any {
	out := make(map[string]any, len(body)+1)
	for k, v := range body {
		out[k] = v
	}
	return out
}

// createSet sends the versions of one request as a set in history, at most
// five at the service at once, and with --wait follows all to their end
// and saves their results.
func (app *App) createSet(ctx context.Context, op api.Operation, versions []setRequest, o createOpts) error {
	if o.dryRun {
		for _, v := range versions {
			fmt.Fprintf(app.Out, "# version %d: %s\n", v.line, api.CleanText(v.label))
			raw, err := json.Marshal(v.body)
			if err != nil {
				return err
			}
			if err := writeDryRun(app.Out, raw); err != nil {
				return err
			}
		}
		return nil
	}
	s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir})
	if err != nil {
		return err
	}
	defer s.Close()
	if !o.caps.over {
		if err := s.CheckSpendCaps(ctx, setPrice(s, versions), "these variations"); err != nil {
			return capRefused(err)
		}
	}
	setID, _, err := s.Store.OpenSet(ctx, history.SetVariations, "", fmt.Sprintf("%s, %d versions", op, len(versions)), setMembers(versions))
	if err != nil {
		return err
	}
	run := newSetRun(app, s, setID, "variations", o.json)
	run.untilSent = !o.wait
	sum, err := run.run(ctx, versions)
	if sum != nil {
		if werr := sum.write(app.Out, o.json); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if o.wait && !o.noDownload {
		for _, v := range versions {
			res := run.results[v.line]
			if res == nil || len(res.Creations) == 0 {
				continue
			}
			if err := app.download(ctx, s.Downloader, op, run.taskIDs[v.line], res, o); err != nil {
				return err
			}
		}
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%s of %d failed", textutil.Plural(sum.Failed, "version"), len(versions))
	}
	return nil
}
