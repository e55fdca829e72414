package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/editor"
	"clapper/record"
	"clapper/scenes"
	"clapper/studio"
	"clapper/ui/preview"
)

type sceneEditorKeys struct {
	Up, Down, Left, Right, Choose, Edit, Compose key.Binding
	Open, Copy, Download, DownloadCut, Reread    key.Binding
	Back                                         key.Binding
}

func newSceneEditorKeys() sceneEditorKeys {
	return sceneEditorKeys{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous scene")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next scene")),
		Left:        key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "older version")),
		Right:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "newer version")),
		Choose:      key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "use in the cut")),
		Edit:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit prompt")),
		Compose:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compose")),
		Open:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open cut")),
		Copy:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy cut URL")),
		Download:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "save version")),
		DownloadCut: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "save cut")),
		Reread:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-read")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

func (k sceneEditorKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Back, k.Choose, k.Edit, k.Compose, k.Open, k.DownloadCut}
}

// Name titles the help while these keys are in force.
func (k sceneEditorKeys) Name() string { return "scene editor" }

func (k sceneEditorKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right, k.Back},
		{k.Choose, k.Edit, k.Compose, k.Reread},
		{k.Open, k.Copy, k.Download, k.DownloadCut},
	}
}

// sceneEditor shows one multi-scene job: its scenes, the versions of the
// selected scene, and its compositions; it edits, chooses and composes.
type sceneEditor struct {
	env   *env
	keys  sceneEditorKeys
	jobID string
	job   *record.Job
	err   error

	scene, version int // cursors: scene index, version index in it
	prompt         *scenePrompt

	thumbs   map[string]*preview.Cells
	thumbErr map[string]string
	nudging  bool

	width, height int
}

type (
	sceneJobLoadedMsg struct {
		jobID string
		job   record.Job
		err   error
	}
	sceneThumbMsg struct {
		versionID string
		cells     *preview.Cells
		note      string
	}
	sceneNudgeMsg        struct{ jobID string }
	sceneEditorClosedMsg struct{}
	// scenePromptDiscardedMsg: the user chose to drop a prompt edited.
	scenePromptDiscardedMsg struct{}
)

func newSceneEditor(e *env, jobID string) *sceneEditor {
	return &sceneEditor{env: e, keys: newSceneEditorKeys(), jobID: jobID, version: -1,
		thumbs: map[string]*preview.Cells{}, thumbErr: map[string]string{}}
}

func (m *sceneEditor) Init() tea.Cmd { return m.refresh() }

func (m *sceneEditor) Capturing() bool { return m.prompt != nil }

func (m *sceneEditor) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.prompt != nil {
		m.prompt.SetSize(w, h)
	}
}

func (m *sceneEditor) svc() *scenes.Service { return m.env.studio.Scenes() }

func (m *sceneEditor) refresh() tea.Cmd {
	ctx, svc, id := m.env.ctx, m.svc(), m.jobID
	return func() tea.Msg {
		j, err := svc.Load(ctx, id)
		return sceneJobLoadedMsg{jobID: id, job: j, err: err}
	}
}

func (m *sceneEditor) Help() help.KeyMap {
	if m.prompt != nil {
		return m.prompt.Help()
	}
	k := m.keys
	rec, v, ok := m.selected()
	k.Choose.SetEnabled(ok && v.State == api.StateSuccess)
	k.Edit.SetEnabled(ok && api.IsTerminal(rec.Current().State))
	k.Download.SetEnabled(ok && v.State == api.StateSuccess)
	_, cut := m.lastCut()
	k.Open.SetEnabled(cut)
	k.Copy.SetEnabled(cut)
	k.DownloadCut.SetEnabled(cut)
	k.Compose.SetEnabled(m.job != nil && len(m.job.Scenes) > 0)
	// Arrows that would move nowhere are not offered: one scene, or a
	// scene of one version.
	k.Up.SetEnabled(m.job != nil && len(m.job.Scenes) > 1)
	k.Down.SetEnabled(m.job != nil && len(m.job.Scenes) > 1)
	k.Left.SetEnabled(len(rec.Jobs) > 1)
	k.Right.SetEnabled(len(rec.Jobs) > 1)
	return k
}

// selected is the scene under the cursor and the version under the
// version cursor.
func (m *sceneEditor) selected() (record.JobRecord, record.SubJob, bool) {
	if m.job == nil || m.scene >= len(m.job.Scenes) {
		return record.JobRecord{}, record.SubJob{}, false
	}
	rec := m.job.Scenes[m.scene]
	if m.version < 0 || m.version >= len(rec.Jobs) {
		return rec, record.SubJob{}, false
	}
	return rec, rec.Jobs[m.version], true
}

// lastCut is the newest successful composition.
func (m *sceneEditor) lastCut() (record.SubJob, bool) {
	if m.job == nil {
		return record.SubJob{}, false
	}
	v, _, ok := scenes.LastCut(*m.job)
	return v, ok
}

// chosenIndex is the position of the scene's chosen version, else its newest.
func chosenIndex(j record.Job, rec record.JobRecord) int {
	if v, _, ok := scenes.Chosen(j, rec); ok {
		for i := range rec.Jobs {
			if rec.Jobs[i].ID == v.ID {
				return i
			}
		}
	}
	return len(rec.Jobs) - 1
}

func (m *sceneEditor) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sceneJobLoadedMsg:
		if msg.jobID != m.jobID {
			return nil
		}
		m.err = msg.err
		if msg.err != nil {
			return nil
		}
		m.job = &msg.job
		m.scene = min(m.scene, max(len(m.job.Scenes)-1, 0))
		if _, _, ok := m.selected(); !ok && m.scene < len(m.job.Scenes) {
			m.version = chosenIndex(*m.job, m.job.Scenes[m.scene])
		}
		return tea.Batch(m.loadThumb(), m.nudge())
	case sceneThumbMsg:
		if msg.cells != nil {
			m.thumbs[msg.versionID] = msg.cells
		} else {
			m.thumbErr[msg.versionID] = msg.note
		}
		return nil
	case scenePromptDiscardedMsg:
		m.prompt = nil
		return nil
	case sceneNudgeMsg:
		m.nudging = false
		if msg.jobID == m.jobID {
			m.svc().Nudge(m.jobID)
			return m.nudge()
		}
		return nil
	case editor.EditedMsg, promptsFoundMsg, promptStarredMsg, promptChosenMsg, tea.PasteMsg:
		if m.prompt != nil {
			cmd, _, _ := m.prompt.Update(msg)
			return cmd
		}
		return nil
	case tea.KeyPressMsg:
		if m.prompt != nil {
			return m.onPromptKey(msg)
		}
		return m.onKey(msg)
	}
	return nil
}

// nudge keeps the watcher reading the job every few seconds while a version
// of it is being made and the editor shows it (scenes.NudgeInterval says why).
func (m *sceneEditor) nudge() tea.Cmd {
	if m.nudging || m.job == nil || !scenes.Running(*m.job) {
		return nil
	}
	m.nudging = true
	id := m.jobID
	return m.env.timers.after(scenes.NudgeInterval, sceneNudgeMsg{jobID: id})
}

func (m *sceneEditor) onPromptKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.prompt.search == nil && key.Matches(msg, m.prompt.keys.Cancel) {
		if !m.prompt.edited() {
			m.prompt = nil
			return nil
		}
		// A prompt typed is kept nowhere else: esc asks before it goes.
		scene := m.prompt.scene + 1
		return func() tea.Msg {
			return openDialogMsg{d: &confirmDialog{
				title: fmt.Sprintf("Discard the edit of scene %d?", scene),
				body:  "The prompt typed here is lost (the scene's versions stay as they are). n goes on editing.",
				onYes: func() tea.Msg { return scenePromptDiscardedMsg{} },
			}}
		}
	}
	cmd, text, ok := m.prompt.Update(msg)
	if !ok {
		return cmd
	}
	from := m.prompt.from
	m.prompt = nil
	rec := m.recordOf(from.ID)
	scene, next := rec.Index+1, len(rec.Jobs)+1
	price := m.env.studio.ScenePrice(true, from.Duration)
	ctx, svc, jobID := m.env.ctx, m.svc(), m.jobID
	name := fmt.Sprintf("scene %d v%d", scene, next)
	send := submit(func() tea.Msg {
		if _, err := svc.Edit(ctx, jobID, from.ID, text); err != nil {
			return sceneSentMsg{err: err}
		}
		return sceneSentMsg{text: "scene edit sent: " + name + " is being made"}
	})
	// Every send shows its price and the spending caps first.
	st, label := m.env.studio, scenes.VersionLabel(rec, from.ID)
	return func() tea.Msg {
		return openDialogMsg{d: &confirmDialog{
			title: fmt.Sprintf("Send the edit of scene %d?", scene),
			body:  fmt.Sprintf("It makes %s from %s.\n%s", name, label, spendingLines(ctx, st, price, "this scene edit")),
			onYes: send,
		}}
	}
}

// recordOf is the scene record holding version id.
func (m *sceneEditor) recordOf(id string) record.JobRecord {
	for _, rec := range m.job.Scenes {
		for _, v := range rec.Jobs {
			if v.ID == id {
				return rec
			}
		}
	}
	return record.JobRecord{}
}

// sceneSentMsg is the answer to an edit or a composition.
type sceneSentMsg struct {
	text string
	err  error
}

func (m *sceneEditor) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.Help().(sceneEditorKeys)
	ctx, svc, jobID := m.env.ctx, m.svc(), m.jobID
	rec, v, ok := m.selected()
	switch {
	case key.Matches(msg, k.Back):
		return func() tea.Msg { return sceneEditorClosedMsg{} }
	case key.Matches(msg, k.Up), key.Matches(msg, k.Down):
		if m.job == nil || len(m.job.Scenes) == 0 {
			return nil
		}
		if key.Matches(msg, k.Up) {
			m.scene = max(m.scene-1, 0)
		} else {
			m.scene = min(m.scene+1, len(m.job.Scenes)-1)
		}
		m.version = chosenIndex(*m.job, m.job.Scenes[m.scene])
		return m.loadThumb()
	case key.Matches(msg, k.Left) && ok:
		m.version = max(m.version-1, 0)
		return m.loadThumb()
	case key.Matches(msg, k.Right) && ok:
		m.version = min(m.version+1, len(rec.Jobs)-1)
		return m.loadThumb()
	case key.Matches(msg, k.Choose):
		what := "scene " + itoa(rec.Index+1) + " goes into the cut as version " + itoa(m.version+1)
		return func() tea.Msg {
			if err := svc.Choose(ctx, jobID, v.ID); err != nil {
				return statusMsg{text: api.CleanLine(err.Error()), bad: true}
			}
			return done(what, changedJobs)
		}
	case key.Matches(msg, k.Edit):
		from, n := rec.Current(), len(rec.Jobs)
		if ok {
			from, n = v, m.version+1
		}
		m.prompt = newScenePrompt(m.env, rec.Index, n, from)
		m.prompt.SetSize(m.width, m.height)
		return nil
	case key.Matches(msg, k.Compose):
		return m.confirmCompose()
	case key.Matches(msg, k.Reread):
		return func() tea.Msg {
			if _, err := svc.Refresh(ctx, jobID); err != nil {
				return statusMsg{text: "re-reading job " + api.CleanLine(jobID) + ": " + api.CleanLine(err.Error()), bad: true}
			}
			return done("job "+api.CleanLine(jobID)+" re-read from the service", changedJobs|changedTasks)
		}
	case key.Matches(msg, k.Download):
		return saveVersion(ctx, svc, jobID, v.ID, "version "+itoa(m.version+1)+" of scene "+itoa(rec.Index+1))
	case key.Matches(msg, k.DownloadCut):
		cut, _ := m.lastCut()
		return saveVersion(ctx, svc, jobID, cut.ID, "the composed video")
	case key.Matches(msg, k.Open):
		return m.openCut()
	case key.Matches(msg, k.Copy):
		cut, _ := m.lastCut()
		return func() tea.Msg {
			url, _, err := svc.FreshURL(ctx, jobID, cut.ID)
			if err != nil {
				return statusMsg{text: api.CleanLine(err.Error()), bad: true}
			}
			return tea.BatchMsg{tea.SetClipboard(url), status("copied a fresh URL of the composed video (it lives under 3 minutes)")}
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

func saveVersion(ctx context.Context, svc *scenes.Service, jobID, id, what string) tea.Cmd {
	return func() tea.Msg {
		path, err := svc.Download(ctx, jobID, id, "")
		if err != nil {
			return statusMsg{text: "saving " + what + ": " + api.CleanLine(err.Error()), bad: true}
		}
		return done("saved "+what+" to "+api.CleanLine(path), changedJobs)
	}
}

// openCut opens the saved composed video, else a fresh URL of it.
func (m *sceneEditor) openCut() tea.Cmd {
	cut, _ := m.lastCut()
	if d := cut.Download; d != nil && d.Status == record.DownloadDone {
		return openExternal(m.env, d.Path)
	}
	ctx, svc, jobID := m.env.ctx, m.svc(), m.jobID
	return func() tea.Msg {
		url, _, err := svc.FreshURL(ctx, jobID, cut.ID)
		if err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return openExternal(m.env, url)()
	}
}

// confirmCompose asks before composing, listing the versions that go in.
func (m *sceneEditor) confirmCompose() tea.Cmd {
	j := *m.job
	ids, err := scenes.ChosenIDs(j)
	if err != nil {
		return statusErr(err)
	}
	var body strings.Builder
	var labels []string
	for i, rec := range j.Scenes {
		_, byUser, _ := scenes.Chosen(j, rec)
		label := scenes.VersionLabel(rec, ids[i])
		labels = append(labels, label)
		body.WriteString("scene " + itoa(rec.Index+1) + ": " + api.CleanLine(label))
		if byUser {
			body.WriteString(" (your choice)")
		}
		body.WriteString("\n")
	}
	cut := strings.Join(labels, ", ")
	ctx, svc, jobID, st := m.env.ctx, m.svc(), m.jobID, m.env.studio
	return func() tea.Msg {
		return openDialogMsg{d: &confirmDialog{
			title: "Compose these versions?",
			body:  body.String() + spendingLines(ctx, st, st.ScenePrice(false, 0), "this composition"),
			onYes: func() tea.Msg {
				if _, _, err := svc.Compose(ctx, jobID, ids); err != nil {
					return statusMsg{text: "compose: " + api.CleanLine(err.Error()), bad: true}
				}
				return done("the cut of "+api.CleanLine(cut)+" is being made; it is saved when done", changedJobs)
			},
		}}
	}
}

// loadThumb fetches the selected version's first frame once, when the
// wide layout has room for it.
func (m *sceneEditor) loadThumb() tea.Cmd {
	_, v, ok := m.selected()
	if !ok || !m.wide() || len(v.Images) == 0 || m.thumbs[v.ID] != nil || m.thumbErr[v.ID] != "" {
		return nil
	}
	s, ctx, id, url := m.env.studio, m.env.ctx, v.ID, v.Images[0]
	m.thumbErr[id] = "loading…"
	return func() tea.Msg {
		path, err := s.Preview(ctx, "scene-"+id, url)
		if err != nil {
			return sceneThumbMsg{versionID: id, note: "no picture: " + api.CleanLine(err.Error())}
		}
		cells, err := previews.Load(path, thumbCols, thumbRows)
		if err != nil {
			return sceneThumbMsg{versionID: id, note: "no picture: " + api.CleanLine(err.Error())}
		}
		return sceneThumbMsg{versionID: id, cells: cells}
	}
}

// spendingLines are a scene send's price, today's and this month's
// spending, and, when the send passes a credit cap, that it does: the
// review of a new task shows the same. It reads history, so it runs in a
// command.
func spendingLines(ctx context.Context, st *studio.Studio, price studio.Price, sending string) string {
	spent, overCap := st.SpendingFor(ctx, price, sending)
	out := "cost: " + price.Text + "\nspent: " + spent
	if overCap != "" {
		out += "\n! " + strings.TrimPrefix(overCap, "not sent: ") + "\nSend it anyway?"
	}
	return out
}
