package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/scenes"
)

// The scene editor's drawing: everything comes from the loaded job; View
// never reads anything.

const (
	thumbCols, thumbRows = 28, 8
	// wideEditor is the width from which the selected version's picture
	// sits beside the versions.
	wideEditor = 110
)

func (m *sceneEditor) wide() bool { return m.width >= wideEditor }

func (m *sceneEditor) View() string {
	if m.prompt != nil {
		return m.prompt.View()
	}
	th := m.env.theme
	switch {
	case m.err != nil:
		return th.Error.Render(" Could not read job "+api.CleanLine(m.jobID)+": "+api.CleanLine(m.err.Error())) + "\n" + th.Dim.Render(" esc goes back")
	case m.job == nil:
		return th.Dim.Render(" reading job " + api.CleanLine(m.jobID) + "…")
	}
	j := *m.job
	var b strings.Builder
	b.WriteString(m.header(j))
	if len(j.Scenes) == 0 {
		b.WriteString("\n" + th.Dim.Render(" No scenes yet: the service lists them once the job starts.") + "\n")
		return b.String()
	}
	// The scene list takes up to a third of the height; the versions and
	// the compositions share the rest.
	listRows := min(len(j.Scenes), max(m.height/3, 3))
	b.WriteString(m.sceneList(j, listRows))
	b.WriteString("\n")
	versions := m.versionPanel(j)
	if m.wide() {
		versions = lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(m.width-thumbCols-4).Render(versions), "  ", m.thumbView())
	}
	b.WriteString(versions)
	b.WriteString("\n\n" + m.compositions(j))
	return b.String()
}

func (m *sceneEditor) header(j record.Job) string {
	th := m.env.theme
	state := j.State
	label := stateLabel(state)
	if scenes.Running(j) && api.IsTerminal(state) {
		state, label = api.StateProcessing, "editing"
	}
	line := th.Title.Render(" Job "+api.CleanLine(j.ID)) + "  " + stateStyle(th, state)(glyph(state)+" "+label) +
		th.Dim.Render(fmt.Sprintf("  ·  %s", textutil.Plural(len(j.Scenes), "scene", "scenes")))
	if cut, ok := m.lastCut(); ok {
		// The cut is ready only while it is of the ★ versions.
		ids, err := scenes.ChosenIDs(j)
		switch {
		case err != nil || !slices.Equal(scenes.ComposedInput(cut), ids):
			line += th.Warning.Render("  ·  cut outdated (c composes ★)")
		case cut.Download != nil && cut.Download.Status == record.DownloadDone:
			line += th.Dim.Render("  ·  cut saved")
		default:
			line += th.Dim.Render("  ·  cut ready")
		}
	}
	out := line + "\n"
	if j.ErrCode != "" || j.ErrMsg != "" {
		out += m.failure(j.ErrCode, j.ErrMsg, "e edits a failed scene; c composes the chosen versions") + "\n"
	}
	return out
}

// failure is an err_code with its meaning, the service's message, and what
// to do about it.
func (m *sceneEditor) failure(code, msg, retry string) string {
	th := m.env.theme
	w := max(m.width-4, 20)
	if m.wide() {
		w = m.width - thumbCols - 8
	}
	text := th.Error.Render(" ✗ "+api.CleanLine(code)) + " " + api.CleanLine(msg)
	meaning := api.Explain(code, 0)
	if strings.TrimSpace(meaning) == strings.TrimSpace(api.CleanLine(msg)) {
		meaning = "" // the service already said it in these words
	} else {
		meaning += " "
	}
	return textutil.Cut(text, m.width) + "\n" + indent(wrap(meaning+"("+retry+")", w), 3)
}

func (m *sceneEditor) sceneList(j record.Job, rows int) string {
	th := m.env.theme
	promptW := max(m.width-44, 10)
	var b strings.Builder
	b.WriteString(th.Dim.Render(fmt.Sprintf("   %2s %4s  %-8s %-14s %s", "#", "LEN", "CUT", "STATE", "PROMPT · LYRIC")) + "\n")
	first := max(0, m.scene-rows+1)
	for i := first; i < len(j.Scenes) && i < first+rows; i++ {
		rec := j.Scenes[i]
		cur := rec.Current()
		v, byUser, ok := scenes.Chosen(j, rec)
		cut := "—"
		if ok {
			cut = fmt.Sprintf("v%d/%d", chosenIndex(j, rec)+1, len(rec.Jobs))
			if byUser {
				cut += "★"
			}
		} else {
			v = cur
		}
		state := v.State
		text := api.CleanLine(v.Prompt)
		if v.LyricText != "" {
			text += " · " + api.CleanLine(v.LyricText)
		}
		if cur.ID != v.ID && !api.IsTerminal(cur.State) {
			text = fmt.Sprintf("(v%d %s) %s", len(rec.Jobs), stateLabel(cur.State), text)
		}
		line := fmt.Sprintf("%2d %3ds  %-8s %s %s", rec.Index+1, v.Duration, cut,
			stateStyle(th, state)(textutil.Fit(glyph(state)+" "+stateLabel(state), 14)), textutil.Fit(text, promptW))
		if i == m.scene {
			b.WriteString(th.Marker.Render("▌ ") + th.Selected.Render(line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if n := len(j.Scenes); n > rows {
		b.WriteString(th.Dim.Render(fmt.Sprintf("   scene %d of %d", m.scene+1, n)) + "\n")
	}
	return b.String()
}

// versionPanel lists the selected scene's versions, newest last, with the
// cursor's version in full.
func (m *sceneEditor) versionPanel(j record.Job) string {
	th := m.env.theme
	rec, sel, ok := m.selected()
	if !ok {
		return ""
	}
	w := m.width
	if m.wide() {
		w = m.width - thumbCols - 4
	}
	chosen, _, _ := scenes.Chosen(j, rec)
	var b strings.Builder
	b.WriteString(th.Section.Render(fmt.Sprintf(" Scene %d", rec.Index+1)) + th.Dim.Render(fmt.Sprintf(" · %s · ←/→ picks, space puts it in the cut", textutil.Plural(len(rec.Jobs), "version", "versions"))) + "\n")
	// A window of versions around the cursor: at most five.
	first := max(0, min(m.version-2, len(rec.Jobs)-5))
	for i := first; i < len(rec.Jobs) && i < first+5; i++ {
		v := rec.Jobs[i]
		mark := "  "
		if i == m.version {
			mark = th.Marker.Render("▸ ")
		}
		star := " "
		if v.ID == chosen.ID {
			star = th.Success.Render("★")
		}
		when := "—"
		if !v.CreatedAt.IsZero() {
			when = v.CreatedAt.Local().Format("Jan 2 15:04:05")
		}
		head := fmt.Sprintf("v%-2d %s %s %s  ", i+1, star, stateStyle(th, v.State)(textutil.Fit(glyph(v.State)+" "+stateLabel(v.State), 13)), th.Dim.Render(when))
		b.WriteString(" " + mark + head + textutil.Fit(api.CleanLine(v.Prompt), max(w-lipgloss.Width(head)-4, 8)) + "\n")
	}
	if len(rec.Jobs) > 5 {
		b.WriteString(th.Dim.Render(fmt.Sprintf("    version %d of %d", m.version+1, len(rec.Jobs))) + "\n")
	}
	if sel.LyricText != "" {
		b.WriteString(th.Dim.Render("   lyric: ") + textutil.Fit(api.CleanLine(sel.LyricText), max(w-12, 8)) + "\n")
	}
	if sel.State == api.StateFailed {
		b.WriteString(m.failure(sel.ErrCode, sel.ErrMsg, "e edits the prompt and tries again") + "\n")
	}
	if d := sel.Download; d != nil {
		b.WriteString(m.fileLine(*d, w) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *sceneEditor) fileLine(d record.VersionDownload, w int) string {
	th := m.env.theme
	switch d.Status {
	case record.DownloadDone:
		return "   " + th.Success.Render("saved ") + textutil.Fit(api.CleanLine(d.Path), max(w-10, 8))
	case record.DownloadRunning:
		return th.Dim.Render("   saving…")
	}
	return "   " + th.Error.Render("not saved: ") + textutil.Fit(api.CleanLine(d.Error), max(w-15, 8))
}

func (m *sceneEditor) thumbView() string {
	th := m.env.theme
	_, v, ok := m.selected()
	switch {
	case !ok:
		return ""
	case m.thumbs[v.ID] != nil:
		return m.thumbs[v.ID].HalfBlock()
	case m.thumbErr[v.ID] != "":
		return th.Dim.Render(wrap(m.thumbErr[v.ID], thumbCols))
	case len(v.Images) == 0:
		return th.Dim.Render(wrap("no first frame yet", thumbCols))
	}
	return ""
}

// compositions lists the newest compositions with what they were made of.
func (m *sceneEditor) compositions(j record.Job) string {
	th := m.env.theme
	var all []record.SubJob
	for _, rec := range j.Compose {
		all = append(all, rec.Jobs...)
	}
	var b strings.Builder
	b.WriteString(th.Section.Render(" Compositions") + th.Dim.Render(" · c composes the ★ versions") + "\n")
	if len(all) == 0 {
		b.WriteString(th.Dim.Render("   none yet") + "\n")
		return b.String()
	}
	for i := max(0, len(all)-2); i < len(all); i++ {
		v := all[i]
		line := fmt.Sprintf("   v%-2d %s", i+1, stateStyle(th, v.State)(textutil.Fit(glyph(v.State)+" "+stateLabel(v.State), 13)))
		if ids := scenes.ComposedInput(v); len(ids) > 0 {
			line += th.Dim.Render(" of " + cutLabel(j, ids))
		}
		b.WriteString(textutil.Cut(line, m.width) + "\n")
		if v.State == api.StateFailed {
			b.WriteString(m.failure(v.ErrCode, v.ErrMsg, "c composes again") + "\n")
		}
		if v.Download != nil {
			b.WriteString(m.fileLine(*v.Download, m.width) + "\n")
		}
	}
	return b.String()
}

// cutLabel names the versions a composition took by scene and version
// number ("1:v1 2:v3 3:v1"), which reads better than their ids.
func cutLabel(j record.Job, ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = api.CleanLine(id)
		for _, rec := range j.Scenes {
			for n, v := range rec.Jobs {
				if v.ID == id {
					parts[i] = fmt.Sprintf("%d:v%d", rec.Index+1, n+1)
				}
			}
		}
	}
	return strings.Join(parts, " ")
}
