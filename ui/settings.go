package ui

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/forms"
	"clapper/studio"
)

type settingsKeys struct{ Up, Down, Top, Bottom, Edit, Toggle, ToggleBack, Save, Cancel key.Binding }

func (k settingsKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Edit, k.Toggle, k.Save, k.Cancel}
}
func (k settingsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Edit, k.Toggle, k.ToggleBack, k.Save, k.Cancel}}
}

// setting is one row of the Settings page.
type setting struct {
	label, help string
	kind        settingKind
	get         func(c *studio.Config) string
	set         func(c *studio.Config, v string) error
	// keep copies the row's value from the draft into the settings file.
	keep func(s *studio.Settings, c studio.Config)
	// choices are what space, enter and →/← cycle through on a choice row.
	choices []string
	// show, when set, is how a value is shown (a URL without its password);
	// edit how it is given to edit (its password a stand-in).
	show, edit func(v string) string
	// unset is what an empty value is shown as ("default" when "").
	unset string
	// folder: the value is a local folder, completed with tab.
	folder bool
	// sandboxOnly: the value paces the embedded sandbox alone; on a live
	// service it does nothing, and the row says so rather than show it.
	sandboxOnly bool
}

type settingKind int

const (
	textSetting settingKind = iota
	secretSetting
	toggleSetting
	choiceSetting
)

// settingsSavedMsg: the settings file was written; cfg is the new
// configuration to run on.
type settingsSavedMsg struct {
	cfg  studio.Config
	path string
}

// settingsRefusedMsg: the save reached a key or a team history that did
// not answer as it must; nothing was written.
type settingsRefusedMsg struct{ text string }

// settingsPage edits a copy of the configuration; s saves it to the
// settings file and restarts the studio on it (another backend means
// another history), without restarting the program.
type settingsPage struct {
	env     *env
	keys    settingsKeys
	rows    []setting
	draft   studio.Config
	cursor  int
	editing bool
	input   textinput.Model
	problem string
	// checking says what a save reaches before it writes (a new key, a
	// team's database), while it does: a server that never answers holds
	// the save for the whole timeout.
	checking string
	// paths completes the folder being typed into a folder row.
	paths *forms.PathCompleter
	// typed marks the rows changed on the page: only these are saved.
	typed  map[int]bool
	width  int
	height int
}

func newSettingsPage(e *env) *settingsPage {
	in := textinput.New()
	in.Prompt = "› "
	p := &settingsPage{env: e, input: in, draft: e.studio.Config, typed: map[int]bool{}, keys: settingsKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Bottom: key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Edit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit")),
		// enter and the arrows too: they are how every other row and the
		// forms' choices are changed, and a switch that ignored them looked
		// frozen.
		Toggle:     key.NewBinding(key.WithKeys("space", "enter", "right", "l"), key.WithHelp("space/→", "switch")),
		ToggleBack: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "switch back")),
		Save:       key.NewBinding(key.WithKeys("s", "ctrl+s"), key.WithHelp("s", "save and apply")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "discard changes")),
	}}
	p.rows = []setting{
		{label: "API key", kind: secretSetting, help: "Empty runs on the embedded sandbox. " + studio.EnvAPIKey + " wins over this.",
			get:  func(c *studio.Config) string { return c.APIKey },
			set:  func(c *studio.Config, v string) error { c.APIKey = v; return nil },
			keep: func(s *studio.Settings, c studio.Config) { s.APIKey = c.APIKey }},
		{label: "Service address", help: "The service's base URL, e.g. https://api.example.com (needed with a key).",
			get:  func(c *studio.Config) string { return c.BaseURL },
			set:  func(c *studio.Config, v string) error { c.BaseURL = v; return nil },
			keep: func(s *studio.Settings, c studio.Config) { s.BaseURL = c.BaseURL }},
		{label: "Download folder", folder: true, help: "Empty picks ~/Videos, ~/Pictures or ~/Music /clapper by media.",
			get:  func(c *studio.Config) string { return c.DownloadDir },
			set:  func(c *studio.Config, v string) error { c.DownloadDir = v; return nil },
			keep: func(s *studio.Settings, c studio.Config) { s.DownloadDir = c.DownloadDir }},
		{label: "Auto-download", kind: toggleSetting, help: "Save results as soon as a task succeeds.",
			get:  func(c *studio.Config) string { return onOff(c.AutoDownload) },
			set:  func(c *studio.Config, v string) error { c.AutoDownload = v == "on"; return nil },
			keep: func(s *studio.Settings, c studio.Config) { on := c.AutoDownload; s.AutoDownload = &on }},
		{label: "Request budget", help: "Reads per second for all tasks together, 0.5 to 20.",
			get: func(c *studio.Config) string { return strconv.FormatFloat(c.RequestBudget, 'f', -1, 64) },
			set: func(c *studio.Config, v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f < 0.5 || f > 20 {
					return fmt.Errorf("request budget: give a number from 0.5 to 20 (reads per second)")
				}
				c.RequestBudget = f
				return nil
			},
			keep: func(s *studio.Settings, c studio.Config) { s.RequestBudget = c.RequestBudget }},
		{label: "Sandbox speed", sandboxOnly: true, help: "1 is real time; 60 runs a minute of simulated generation in a second.",
			get: func(c *studio.Config) string { return strconv.FormatFloat(c.SandboxSpeed, 'f', -1, 64) },
			set: func(c *studio.Config, v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f < 1 || f > studio.MaxSandboxSpeed {
					return fmt.Errorf("sandbox speed: give a number from 1 to %g", studio.MaxSandboxSpeed)
				}
				c.SandboxSpeed = f
				return nil
			},
			keep: func(s *studio.Settings, c studio.Config) { s.SandboxSpeed = c.SandboxSpeed }},
		{label: "Theme", kind: choiceSetting, help: "auto follows the terminal's background.", choices: studio.Themes,
			get:  func(c *studio.Config) string { return c.Theme },
			set:  func(c *studio.Config, v string) error { c.Theme = v; return nil },
			keep: func(s *studio.Settings, c studio.Config) { s.Theme = c.Theme }},
		{label: "Uploads", kind: choiceSetting, help: "When local images go through the service's upload flow: auto when inlining would pass 20 MB, always, or never.", choices: studio.UploadModes,
			get: func(c *studio.Config) string {
				if c.Uploads == "" {
					return studio.UploadAuto
				}
				return c.Uploads
			},
			set:  func(c *studio.Config, v string) error { c.Uploads = v; return nil },
			keep: func(s *studio.Settings, c studio.Config) { s.Uploads = c.Uploads }},
		creditCapRow("Agent credit cap", "Credits AI agents (clapper mcp) may spend a day; off (or 0) is no cap. "+studio.EnvAgentCreditCap+" and --daily-cap win over this.",
			func(c *studio.Config) *int64 { return &c.AgentCreditCap }, func(s *studio.Settings) *int64 { return &s.AgentCreditCap }),
		creditCapRow("Daily credit cap", "Credits all tasks may cost a day (local days); a send past it asks first here and is refused by the CLI unless --over-cap. Off (or 0) is no cap. "+studio.EnvDailyCreditCap+" and --daily-cap win over this.",
			func(c *studio.Config) *int64 { return &c.DailyCreditCap }, func(s *studio.Settings) *int64 { return &s.DailyCreditCap }),
		creditCapRow("Monthly credit cap", "Credits all tasks may cost a calendar month; as the daily cap. "+studio.EnvMonthlyCreditCap+" and --monthly-cap win over this.",
			func(c *studio.Config) *int64 { return &c.MonthlyCreditCap }, func(s *studio.Settings) *int64 { return &s.MonthlyCreditCap }),
		{label: "Agent folders", help: "Folders whose files AI agents (clapper mcp) may send, beside the download folders; separate them with " + string(os.PathListSeparator) + ". --media-root adds to these.",
			unset: "none — the download folders only",
			get:   func(c *studio.Config) string { return strings.Join(c.MediaRoots, string(os.PathListSeparator)) },
			set: func(c *studio.Config, v string) error {
				roots, err := studio.ParseMediaRoots(v)
				if err != nil {
					return fmt.Errorf("agent folders: %v", err)
				}
				c.MediaRoots = roots
				return nil
			},
			keep: func(s *studio.Settings, c studio.Config) { s.AgentMediaRoots = c.MediaRoots }},
		{label: "Agent asks above", help: "An agent's send of more credits than this (or of a price not yet known) asks you first in its client; off asks only near a cap. " + studio.EnvAgentConfirm + " and --confirm-above win over this.",
			get: func(c *studio.Config) string {
				if c.AgentConfirmAbove == 0 {
					return "off"
				}
				return strconv.FormatInt(c.AgentConfirmAbove, 10)
			},
			set: func(c *studio.Config, v string) error {
				n, err := studio.ParseCreditCap(v)
				if err != nil {
					return fmt.Errorf("agent asks above: %v", err)
				}
				c.AgentConfirmAbove = n
				return nil
			},
			keep: func(s *studio.Settings, c studio.Config) { n := c.AgentConfirmAbove; s.AgentConfirmAbove = &n }},
		{label: "Team history", help: "A team's shared history: postgres://USER:PASSWORD@HOST:PORT/DATABASE. Saving reaches it first. Empty keeps this machine's history file. " + studio.EnvHistoryURL + " and --history-url win over this.",
			show: studio.RedactURL, edit: studio.EditableURL, unset: "none — this machine's history file",
			get: func(c *studio.Config) string { return c.HistoryURL },
			set: func(c *studio.Config, v string) error {
				c.HistoryURL = studio.EditedURL(strings.TrimSpace(v), c.HistoryURL)
				return nil
			},
			keep: func(s *studio.Settings, c studio.Config) { s.HistoryURL = c.HistoryURL }},
	}
	return p
}

// teamRow is the row of the team history's URL (the last).
func (p *settingsPage) teamRow() int { return len(p.rows) - 1 }

// creditCapRow is a credit cap's row: a whole number of credits, off for
// none.
func creditCapRow(label, help string, value func(*studio.Config) *int64, saved func(*studio.Settings) *int64) setting {
	return setting{label: label, help: help,
		get: func(c *studio.Config) string {
			if *value(c) == 0 {
				return "off"
			}
			return strconv.FormatInt(*value(c), 10)
		},
		set: func(c *studio.Config, v string) error {
			n, err := studio.ParseCreditCap(v)
			if err != nil {
				return fmt.Errorf("%s: %v", strings.ToLower(label), err)
			}
			*value(c) = n
			return nil
		},
		keep: func(s *studio.Settings, c studio.Config) { *saved(s) = *value(&c) }}
}

func (p *settingsPage) Title() string    { return pageTitles[pageSettings] }
func (p *settingsPage) Init() tea.Cmd    { return nil }
func (p *settingsPage) Capturing() bool  { return p.editing }
func (p *settingsPage) SetSize(w, h int) { p.width, p.height = w, h; p.input.SetWidth(max(w-30, 10)) }

// reopen takes the configuration of a new studio as the draft.
func (p *settingsPage) reopen() tea.Cmd {
	p.discard()
	return nil
}

// saved says the save's checks passed: the settings are written.
func (p *settingsPage) saved() { p.checking = "" }

func (p *settingsPage) discard() {
	p.draft, p.problem, p.checking, p.typed = p.env.studio.Config, "", "", map[int]bool{}
}

func (p *settingsPage) Help() help.KeyMap {
	k := p.keys
	if p.editing {
		return settingsKeys{Edit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep")),
			Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "undo edit"))}
	}
	kind := p.rows[p.cursor].kind
	k.Toggle.SetEnabled(kind == toggleSetting || kind == choiceSetting)
	k.ToggleBack.SetEnabled(kind == choiceSetting)
	k.Edit.SetEnabled(kind == textSetting || kind == secretSetting)
	dirty := p.dirty() && p.checking == "" // one save at a time
	k.Save.SetEnabled(dirty)
	k.Cancel.SetEnabled(dirty)
	return k
}

func (p *settingsPage) Update(msg tea.Msg) tea.Cmd {
	if p.editing && p.paths != nil {
		if text, cmd, changed, ok := p.paths.Take(msg, p.input.Value()); ok {
			if changed {
				p.input.SetValue(text)
				p.input.CursorEnd()
			}
			return cmd
		}
	}
	switch msg := msg.(type) {
	case settingsRefusedMsg:
		// Kept on the page until the next edit, and in the messages (!):
		// the status line's moment may go to a task's notice.
		p.checking, p.problem = "", msg.text
		return statusErrText(msg.text)
	case tea.PasteMsg:
		if p.editing {
			var cmd tea.Cmd
			p.input, cmd = p.input.Update(msg)
			return cmd
		}
	case tea.KeyPressMsg:
		if p.editing {
			return p.updateEditing(msg)
		}
		k := p.Help().(settingsKeys)
		row := p.rows[p.cursor]
		switch {
		case key.Matches(msg, k.Up):
			p.cursor = (p.cursor + len(p.rows) - 1) % len(p.rows)
		case key.Matches(msg, k.Down):
			p.cursor = (p.cursor + 1) % len(p.rows)
		case key.Matches(msg, k.Top):
			p.cursor = 0
		case key.Matches(msg, k.Bottom):
			p.cursor = len(p.rows) - 1
		case key.Matches(msg, k.Edit):
			p.editing, p.problem = true, ""
			v := row.get(&p.draft)
			if row.edit != nil {
				v = row.edit(v)
			}
			p.input.SetValue(v)
			p.input.EchoMode = textinput.EchoNormal
			if row.kind == secretSetting {
				p.input.EchoMode = textinput.EchoPassword
			}
			p.input.CursorEnd()
			p.paths = nil
			if row.folder {
				p.paths = &forms.PathCompleter{DirsOnly: true}
				return tea.Batch(p.input.Focus(), p.paths.Changed(p.input.Value()))
			}
			return p.input.Focus()
		case key.Matches(msg, k.Toggle):
			p.toggle(row, 1)
		case key.Matches(msg, k.ToggleBack):
			p.toggle(row, -1)
		case key.Matches(msg, k.Save):
			return p.save()
		case key.Matches(msg, k.Cancel):
			p.discard()
		}
	}
	return nil
}

// toggle switches row on or off, or to the choice step places along.
func (p *settingsPage) toggle(row setting, step int) {
	switch row.kind {
	case toggleSetting:
		if row.get(&p.draft) == "on" {
			row.set(&p.draft, "off")
		} else {
			row.set(&p.draft, "on")
		}
	case choiceSetting:
		i := slices.Index(row.choices, row.get(&p.draft))
		n := len(row.choices)
		row.set(&p.draft, row.choices[((i+step)%n+n)%n])
	}
	p.typed[p.cursor] = true
}

// dirty is whether saving would change anything: a value that differs from
// the running configuration, or one given by a flag for this session only
// that was typed here to be kept. A value switched away and back is not a
// change.
func (p *settingsPage) dirty() bool {
	cur := p.env.studio.Config
	for i, r := range p.rows {
		if r.get(&p.draft) != r.get(&cur) || (p.typed[i] && p.sessionOnly(i) != "") {
			return true
		}
	}
	return false
}

func (p *settingsPage) updateEditing(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		if err := p.rows[p.cursor].set(&p.draft, strings.TrimSpace(p.input.Value())); err != nil {
			p.problem = err.Error()
			return nil
		}
		p.editing, p.problem = false, ""
		p.typed[p.cursor] = true
		p.input.Blur()
		return nil
	case "esc":
		p.editing, p.problem = false, ""
		p.input.Blur()
		return nil
	case "tab":
		if p.paths != nil {
			text, cmd := p.paths.Tab(p.input.Value())
			p.input.SetValue(text)
			p.input.CursorEnd()
			return cmd
		}
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.paths != nil && p.input.Value() != before {
		cmd = tea.Batch(cmd, p.paths.Changed(p.input.Value()))
	}
	return cmd
}

// save checks the draft, writes the settings file and hands the new
// configuration to the root.
func (p *settingsPage) save() tea.Cmd {
	cfg := p.draft
	if env := os.Getenv(studio.EnvAPIKey); env != "" {
		cfg.APIKey = env
	}
	if err := cfg.Check(); err != nil {
		p.problem = err.Error()
		return nil
	}
	// The file keeps what it held; only the rows typed on the page change,
	// so a key or an address given by a flag or the environment for this
	// session is never made permanent.
	s := cfg.Saved
	for i, row := range p.rows {
		if p.typed[i] {
			row.keep(&s, p.draft)
		}
	}
	cfg.Saved = s
	if p.typed[0] && os.Getenv(studio.EnvAPIKey) == "" {
		cfg.APIKeySource = studio.FromFile
	}
	if p.typed[1] {
		cfg.BaseURLSource = studio.FromFile
	}
	if p.typed[p.teamRow()] {
		cfg.HistoryURLSource = studio.FromFile
	}
	// A new key or address is read once before anything switches to it,
	// and a new team history is reached (and migrated) first.
	check := cfg.Live() && (p.typed[0] || p.typed[1] || !p.env.studio.Config.Live())
	checkTeam := cfg.Team() && p.typed[p.teamRow()]
	var reached []string
	if check {
		reached = append(reached, "the key with "+api.CleanLine(cfg.Backend()))
	}
	if checkTeam {
		reached = append(reached, "the team history "+api.CleanLine(studio.RedactURL(cfg.HistoryURL)))
	}
	if len(reached) > 0 {
		p.checking = "Checking " + strings.Join(reached, " and ") + "…"
	}
	ctx := p.env.ctx
	return func() tea.Msg {
		if check {
			if _, err := studio.CheckKey(ctx, cfg); err != nil {
				return settingsRefusedMsg{text: "settings not saved: " + api.CleanLine(err.Error())}
			}
		}
		if checkTeam {
			if err := studio.CheckHistory(ctx, cfg); err != nil {
				return settingsRefusedMsg{text: "settings not saved: " + api.CleanLine(err.Error())}
			}
		}
		path, err := studio.SaveSettings(s)
		if err != nil {
			return statusMsg{text: "settings not saved: " + api.CleanLine(err.Error()), bad: true}
		}
		return settingsSavedMsg{cfg: cfg, path: path}
	}
}

// sessionOnly names the flag that gave row i its value for this session
// only; such a value is shown but never written to the settings file.
func (p *settingsPage) sessionOnly(i int) string {
	switch {
	case i == 0 && p.draft.APIKeySource == studio.FromFlag:
		return "--api-key"
	case i == 1 && p.draft.BaseURLSource == studio.FromFlag:
		return "--base-url"
	case i == p.teamRow() && p.draft.HistoryURLSource == studio.FromFlag:
		return "--history-url"
	case i == p.teamRow() && p.draft.HistoryURLSource == studio.FromEnvironment:
		return studio.EnvHistoryURL
	case i == 1 && p.draft.BaseURLSource == studio.FromEnvironment:
		return studio.EnvBaseURL
	}
	return ""
}
