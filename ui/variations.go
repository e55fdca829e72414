package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/forms"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// Variations from the review (v): how many versions, or which field to
// vary with which values; then the whole set's price and the spending caps
// checked as a whole; then the set is sent through the studio's set runner
// (at most five at the service, the rest waiting on our side, shown on the
// set's contact sheet).

// The TUI's bounds on versions: a contact sheet of 16 is a screenful to
// choose from.
const (
	minVersions, maxVersions, defaultVersions = 2, 16, 4
)

// variationsSentMsg: a set of versions was opened in history and its run
// started; the root shows its contact sheet.
type variationsSentMsg struct {
	setID int64
	op    api.Operation
	count int
}

// askVariations asks how many versions, or field=values.
func (p *newPage) askVariations(msg forms.VariationsMsg) tea.Cmd {
	fields := studio.VaryFields(msg.Op, msg.Model)
	hint := fmt.Sprintf("How many versions, %d to %d, each with its own seed (enter: %d); or field=a|b|c for one version per value (commas separate values when no | is given).",
		minVersions, maxVersions, defaultVersions)
	placeholder := strconv.Itoa(defaultVersions)
	if !takesSeed(msg.Op) {
		// Versions of one request without a seed would not differ: only
		// values are offered.
		hint = fmt.Sprintf("field=a|b|c: one version per value, %d to %d (commas separate values when no | is given); %s takes no seed.",
			minVersions, maxVersions, msg.Op)
		placeholder = "field=a|b|c"
	}
	if len(fields) > 0 {
		hint += " Fields: " + strings.Join(fields, ", ") + "."
	}
	cfg := p.env.studio.Config
	check := func(text string) error {
		_, err := expandVariations(cfg, msg, text)
		return err
	}
	th := p.env.theme
	d := newInputDialog(th, "Variations of this "+string(msg.Op)+" request", hint, placeholder, check, func(text string) tea.Cmd {
		versions, err := expandVariations(cfg, msg, text)
		if err != nil {
			return statusErr(err) // the check refused it already: not reached
		}
		return p.confirmVariations(msg, versions)
	})
	return func() tea.Msg { return openDialogMsg{d: d} }
}

// expandVariations reads the dialog's answer: a count, or field=values.
func expandVariations(cfg studio.Config, msg forms.VariationsMsg, text string) ([]studio.SetRequest, error) {
	text = strings.TrimSpace(text)
	if text == "" && takesSeed(msg.Op) {
		text = strconv.Itoa(defaultVersions)
	}
	field, list, vary := strings.Cut(text, "=")
	if !vary && !takesSeed(msg.Op) {
		return nil, fmt.Errorf("%s takes no seed: give field=a|b|c, one version per value", msg.Op)
	}
	if !vary {
		n, err := strconv.Atoi(text)
		if err != nil || n < minVersions || n > maxVersions {
			return nil, fmt.Errorf("versions: give a number from %d to %d, or field=a|b|c", minVersions, maxVersions)
		}
		return studio.SeedVariations(msg.Op, msg.Body, n)
	}
	field = strings.TrimSpace(field)
	values := studio.SplitValues(list)
	if len(values) > maxVersions {
		return nil, fmt.Errorf("%s: %d values; give %d to %d", field, len(values), minVersions, maxVersions)
	}
	versions, err := studio.ValueVariations(cfg, msg.Op, msg.Body, field, values, nil)
	var broken *studio.VariationsError
	if errors.As(err, &broken) {
		// The dialog shows one reason under the input: the first, and how
		// many more.
		more := ""
		if len(broken.Problems) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(broken.Problems)-1)
		}
		return nil, errors.New(broken.Problems[0] + more)
	}
	return versions, err
}

// confirmVariations prices the set and checks the caps in a command, then
// asks before sending it.
func (p *newPage) confirmVariations(msg forms.VariationsMsg, versions []studio.SetRequest) tea.Cmd {
	ctx, s, d := p.env.ctx, p.env.studio, p.drafts
	p.linkVersions(msg.Op, versions)
	return func() tea.Msg {
		price := s.SetPrice(versions)
		spent, overCap := s.SpendingFor(ctx, price, "these variations")
		var body strings.Builder
		labels := make([]string, len(versions))
		for i, v := range versions {
			labels[i] = api.CleanLine(v.Label)
		}
		fmt.Fprintf(&body, "%s%s · %s\n", msg.Op, modelSuffix(msg.Model), textutil.Clip(strings.Join(labels, " · "), 160))
		fmt.Fprintf(&body, "Cost: %s for all %d\n", price.Text, len(versions))
		if spent != "" {
			fmt.Fprintf(&body, "Spent: %s\n", spent)
		}
		if len(versions) > studio.SetSlots {
			fmt.Fprintf(&body, "At most %d run at the service at once; the rest wait here, shown as waiting (ours) on the set's contact sheet.\n", studio.SetSlots)
		}
		title := fmt.Sprintf("Send %d versions as a set?", len(versions))
		if overCap != "" {
			title = fmt.Sprintf("Send %d versions past a credit cap?", len(versions))
			why := strings.TrimPrefix(overCap, "not sent: ")
			fmt.Fprintf(&body, "! %s.\n", strings.ToUpper(why[:1])+why[1:])
		}
		return openDialogMsg{d: &confirmDialog{
			title: title,
			body:  strings.TrimRight(body.String(), "\n"),
			onYes: func() tea.Msg {
				_ = d.RememberSources(msg.Sources) // only duplicates lose by a failure here
				name := fmt.Sprintf("%s, %d versions", msg.Op, len(versions))
				id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", name, studio.SetMembers(versions))
				if err != nil {
					return statusMsg{text: "variations not sent: " + api.CleanLine(err.Error()), bad: true}
				}
				run := s.NewSetRun(id, "variations", versions)
				run.OverCap = overCap != "" // asked, and said yes
				if err := s.StartSet(run); err != nil {
					return statusMsg{text: "variations not sent: " + api.CleanLine(err.Error()), bad: true}
				}
				return variationsSentMsg{setID: id, op: msg.Op, count: len(versions)}
			},
		}}
	}
}

// onVariationsSent returns the form to editing, its values kept, as after
// one send.
func (p *newPage) onVariationsSent() tea.Cmd {
	if p.form == nil {
		return nil
	}
	return tea.Batch(p.form.Delivered(), p.keepSent())
}

// takesSeed reports an operation whose versions can differ by seed alone.
func takesSeed(op api.Operation) bool {
	_, ok := catalog.FieldOf(op, "seed")
	return ok
}

func modelSuffix(model string) string {
	if model == "" {
		return ""
	}
	return " · " + model
}
