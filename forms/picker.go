package forms

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// picker browses directories for a file of the media a field takes; other
// files are not listed. It opens in the folder the last file was picked
// from; / filters the folder as you type, g and G go to the first and last
// entry. Names come from the disk, so they are cleaned before they are drawn.
type picker struct {
	dir     string
	exts    []string
	entries []pickEntry
	cursor  int
	offset  int
	height  int
	err     string
	field   string
	// filter keeps the entries whose name holds it; typing while
	// filtering is on writes it.
	filter    string
	filtering bool
}

type pickEntry struct {
	name string
	dir  bool
	size int64
}

type pickedMsg struct {
	form    int
	dir     string
	entries []pickEntry
	err     error
}

var (
	pickerChoose = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose / open folder"))
	insertKey    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "insert at the cursor"))
	pickerUp     = key.NewBinding(key.WithKeys("backspace", "left"), key.WithHelp("←", "parent folder"))
	pickerBack   = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the form"))
	pickerFilter = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter"))
	pickerEnds   = key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g/G", "first/last"))
)

// shown are the entries the filter keeps.
func (p *picker) shown() []pickEntry {
	if p.filter == "" {
		return p.entries
	}
	var out []pickEntry
	for _, en := range p.entries {
		if strings.Contains(strings.ToLower(en.name), strings.ToLower(p.filter)) {
			out = append(out, en)
		}
	}
	return out
}

func (f *Form) openPicker() tea.Cmd {
	var fd catalog.Field
	switch e := f.focused().(type) {
	case *lineEditor:
		fd = e.f
	case *listEditor:
		fd = e.f
	case *framesEditor:
		fd, _ = e.pickField()
	}
	dir := f.ctx.Dir
	if f.ctx.pickedFrom != "" {
		dir = f.ctx.pickedFrom // where the last file came from, in any form
	}
	f.picker = &picker{dir: dir, exts: mediaExtensions(fd), field: f.focusedName()}
	f.picker.setSize(f.width, f.height)
	f.mode = modePicker
	return f.readDir(dir)
}

func (p *picker) setSize(_, h int) { p.height = max(h-3, 3) }

func (f *Form) readDir(dir string) tea.Cmd {
	id, exts := f.id, f.picker.exts
	return func() tea.Msg {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return pickedMsg{form: id, dir: dir, err: err}
		}
		var out []pickEntry
		for _, en := range ents {
			name := en.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			isDir := en.IsDir()
			info, err := os.Stat(filepath.Join(dir, name))
			if err == nil {
				isDir = info.IsDir()
			}
			if !isDir && !slices.Contains(exts, strings.ToLower(filepath.Ext(name))) {
				continue
			}
			pe := pickEntry{name: name, dir: isDir}
			if err == nil && !isDir {
				pe.size = info.Size()
			}
			out = append(out, pe)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].dir && !out[j].dir })
		return pickedMsg{form: id, dir: dir, entries: out}
	}
}

func (f *Form) picked(msg pickedMsg) tea.Cmd {
	if msg.form != f.id || f.picker == nil {
		return nil
	}
	p := f.picker
	if msg.err != nil {
		p.err = msg.err.Error()
		return nil
	}
	p.dir, p.entries, p.cursor, p.offset, p.err = msg.dir, msg.entries, 0, 0, ""
	p.filter, p.filtering = "", false
	return nil
}

func (f *Form) updatePicker(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || f.picker == nil {
		return nil
	}
	p := f.picker
	if p.filtering {
		switch {
		case k.String() == "esc":
			p.filter, p.filtering, p.cursor = "", false, 0
			return nil
		case k.String() == "enter":
			p.filtering = false
			if len(p.shown()) != 1 {
				return nil
			}
			// One entry left: enter takes it, as it would in the list.
		case k.String() == "backspace":
			if p.filter != "" {
				p.filter = string([]rune(p.filter)[:len([]rune(p.filter))-1])
				p.cursor = 0
			}
			return nil
		case k.Text != "":
			p.filter += k.Text
			p.cursor = 0
			return nil
		}
	}
	shown := p.shown()
	switch k.String() {
	case "esc":
		if p.filter != "" {
			p.filter, p.cursor = "", 0
			return nil
		}
		f.mode = modeEdit
		return f.focusCmd()
	case "/":
		p.filtering = true
		return nil
	case "g", "home":
		p.cursor = 0
	case "G", "end":
		p.cursor = max(len(shown)-1, 0)
	case "up", "k":
	case "backspace", "left", "h":
		return f.readDir(filepath.Dir(p.dir))
	case "enter", "right", "l":
		if p.cursor >= len(shown) {
			return nil
		}
		en := shown[p.cursor]
		path := filepath.Join(p.dir, en.name)
		if en.dir {
			return f.readDir(path)
		}
		if k.String() != "enter" {
			return nil
		}
		f.mode = modeEdit
		f.ctx.pickedFrom = p.dir
		if rel, err := filepath.Rel(f.ctx.Dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		switch e := f.focused().(type) {
		case *lineEditor:
			e.set(path)
		case *listEditor:
			e.Add(path)
		case *framesEditor:
			e.takePicked(path)
		}
		return tea.Batch(f.focusCmd(), f.changed())
	}
	return nil
}

func (f *Form) pickerView() string {
	s, p := f.styles, f.picker
	w := max(f.width, 40)
	var b strings.Builder
	b.WriteString(s.Title.Render(textutil.Truncate("Choose a file for "+p.field, w)) + "\n")
	b.WriteString(s.Dim.Render(textutil.Truncate(api.CleanText(p.dir)+"  ("+strings.Join(p.exts, " ")+")", w)) + "\n")
	shown := p.shown()
	if p.filtering || p.filter != "" {
		b.WriteString(s.Key.Render("/ ") + s.Value.Render(api.CleanText(p.filter)) + s.Dim.Render(fmt.Sprintf("  %d of %d", len(shown), len(p.entries))) + "\n")
	}
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+p.height {
		p.offset = p.cursor - p.height + 1
	}
	lines := 0
	switch {
	case p.err != "":
		b.WriteString(s.Error.Render(textutil.Truncate(api.CleanText(p.err), w)) + "\n")
		lines++
	case len(p.entries) == 0:
		b.WriteString(s.Dim.Render("  no folder and no "+strings.Join(p.exts, ", ")+" file here; ← goes up") + "\n")
		lines++
	case len(shown) == 0:
		b.WriteString(s.Dim.Render("  no name here holds "+api.CleanText(p.filter)+"; esc clears the filter") + "\n")
		lines++
	}
	for i := p.offset; i < len(shown) && i < p.offset+p.height; i++ {
		en := shown[i]
		name := api.CleanText(en.name)
		size := ""
		if en.dir {
			name += "/"
		} else {
			size = api.ByteSize(en.size)
		}
		line := "  " + textutil.Fit(name, w-14) + fmt.Sprintf("%10s", size)
		if i == p.cursor {
			line = s.Selected.Render("› " + textutil.Fit(name, w-14) + fmt.Sprintf("%10s", size))
		} else if en.dir {
			line = s.Key.Render(line)
		}
		b.WriteString(line + "\n")
		lines++
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// referenceView lists the subjects to insert as [@name] into the prompt.
func (f *Form) referenceView() string {
	s := f.styles
	w := max(f.width, 40)
	var b strings.Builder
	b.WriteString(s.Title.Render("Insert a subject into the prompt") + "\n\n")
	for i, n := range f.subjectNames() {
		line := "  [@" + n + "]"
		if i == f.refPick {
			line = s.Selected.Render("› [@" + n + "]")
		}
		b.WriteString(textutil.Truncate(line, w) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
