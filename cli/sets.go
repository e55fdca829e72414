package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"clapper/internal/textutil"
	"clapper/studio"
)

// setPrinter shows a set run (studio.SetRun) on the command's terminal:
// each line's news, a progress bar on a terminal, the summary at the end.
type setPrinter struct {
	app  *App
	noun string // "batch" or "variations": what the summary names
	json bool
	tty  bool
}

// runSet drives the set's requests with the studio's set runner and
// returns its summary. A stop (Ctrl-C) says how to take it up again.
func (app *App) runSet(ctx context.Context, s *studio.Studio, setID int64, noun string, reqs []studio.SetRequest, asJSON, untilSent bool) (*studio.SetRun, *studio.SetSummary, error) {
	p := &setPrinter{app: app, noun: noun, json: asJSON, tty: !asJSON && isTerminal(app.Err)}
	run := s.NewSetRun(setID, noun, reqs)
	run.UntilSent = untilSent
	run.Note, run.Progress = p.note, p.draw
	run.Say = p.say
	run.Explain = func(err error) error {
		if errors.Is(err, studio.ErrOutcomeUnknown) {
			return submitError(err)
		}
		return studio.DescribeAPIError(err)
	}
	err := run.Run(ctx)
	p.endLine()
	var capped *studio.CapError
	if errors.As(err, &capped) {
		err = capRefused(err) // spent elsewhere since the check: the set's unsent lines were not sent
	}
	if errors.Is(err, studio.ErrSetStopped) {
		err = &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped; the %s is in clapper history: run the same command again to send the rest and follow what was sent", noun)}
	}
	sum := run.Summary(ctx)
	if werr := writeSummary(app.Out, sum, asJSON); werr != nil && err == nil {
		err = werr
	}
	return run, sum, err
}

// draw redraws the progress bar on a terminal.
func (p *setPrinter) draw(pr studio.SetProgress) {
	if !p.tty {
		return
	}
	ended := pr.Done + pr.Failed + pr.Unknown
	const width = 30
	filled := width * ended / max(pr.Total, 1)
	fmt.Fprintf(p.app.Err, "\r\x1b[2K[%s%s] %d/%d ended · %d failed · %d at the service · %d waiting here",
		strings.Repeat("█", filled), strings.Repeat("░", width-filled), ended, pr.Total, pr.Failed, pr.AtService, pr.Waiting)
}

// endLine ends the progress bar's line.
func (p *setPrinter) endLine() {
	if p.tty {
		fmt.Fprintln(p.app.Err)
	}
}

// note tells one line's news: above the bar on a terminal, as a plain
// line otherwise (none with --json, whose summary says it all).
func (p *setPrinter) note(format string, args ...any) {
	if p.json {
		return
	}
	if p.tty {
		io.WriteString(p.app.Err, "\r\x1b[2K")
	}
	fmt.Fprintf(p.app.Err, "  "+format+"\n", args...)
}

// say tells something about the whole run.
func (p *setPrinter) say(format string, args ...any) {
	if !p.json {
		fmt.Fprintf(p.app.Err, "clapper: "+format+"\n", args...)
	}
}

// writeSummary prints a set's summary: JSON with --json, else one line.
func writeSummary(w io.Writer, sum *studio.SetSummary, asJSON bool) error {
	if asJSON {
		return writeJSON(w, sum, true)
	}
	line := fmt.Sprintf("%s: %d done, %d failed", sum.Kind, sum.Done, sum.Failed)
	if sum.Unknown > 0 {
		line += fmt.Sprintf(", %d of unknown outcome (clapper history resolve)", sum.Unknown)
	}
	if sum.Waiting > 0 {
		line += fmt.Sprintf(", %d not sent yet", sum.Waiting)
	}
	line += "; " + textutil.Plural(int(sum.Credits), "credit")
	if sum.SetID > 0 {
		line += fmt.Sprintf("; set %d in clapper history", sum.SetID)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
