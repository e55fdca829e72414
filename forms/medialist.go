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

// listEditor holds a list of media: images, videos, sounds. Items are typed
// (or picked) into the line at the bottom and added with enter. ↑/↓ walk
// the items and leave the field past its first item or its line, as they
// walk every field's rows; ctrl+d removes the selected item. Typing while
// an item is selected goes to the line: no keystroke is lost, and nothing
// typed is thrown away by a key.
type listEditor struct {
	ctx   *Context
	f     catalog.Field
	items []string
	line  *lineEditor
	// cursor is an item, or len(items) for the input line.
	cursor int
	// absent are the paths the last check found no file at: they stay in
	// the line, to be corrected, rather than join the list.
	absent map[string]bool
}

func newListEditor(ctx *Context, f catalog.Field) *listEditor {
	one := f
	one.Kind = catalog.KindMedia
	return &listEditor{ctx: ctx, f: f, line: newLineEditor(ctx, one)}
}

func (e *listEditor) SetField(f catalog.Field) {
	e.f = f
	one := f
	one.Kind = catalog.KindMedia
	e.line.SetField(one)
}

func (e *listEditor) Focus() tea.Cmd {
	if e.Full() {
		// Nothing more can be added: the last item is what there is to
		// change (ctrl+d), and typing still reaches the line.
		e.cursor = len(e.items) - 1
		return nil
	}
	e.cursor = len(e.items)
	return e.line.Focus()
}

// Blur adds a URL, or a path its folder's listing shows is a file, typed
// but not yet added with enter: leaving the field must not drop it. A path
// not known to be a file stays on the line (shown, and flagged by the
// check): a missing file never joins the list.
func (e *listEditor) Blur() {
	e.line.Blur()
	v := strings.TrimSpace(e.line.val)
	if catalog.IsLocalPath(v) && !e.line.paths.Whole(e.line.val) {
		return
	}
	if v != "" && !e.absent[v] {
		e.Add(v)
		e.line.set("")
	}
}

var (
	addKey    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add"))
	removeKey = key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove"))
	moveKey   = key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "select items"))
)

func (e *listEditor) Keys() []key.Binding {
	ks := []key.Binding{addKey, removeKey, moveKey, completeKey, pickKey}
	if len(e.items) == 0 {
		// Nothing listed: nothing to remove or select.
		ks = []key.Binding{addKey, completeKey, pickKey}
	}
	if e.line.takesResults() {
		ks = append(ks, nextResultKey)
	}
	return ks
}

func (e *listEditor) OwnsKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "enter":
		return e.cursor == len(e.items) && strings.TrimSpace(e.line.val) != ""
	case "up":
		return e.cursor > 0
	case "down":
		return e.cursor < len(e.items)
	case "tab":
		return e.cursor == len(e.items) && e.line.OwnsKey(k)
	}
	return false
}

func (e *listEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "up":
			if e.cursor > 0 {
				e.cursor--
				if e.cursor == len(e.items)-1 {
					e.line.Blur()
				}
			}
			return nil, false
		case "down":
			if e.cursor < len(e.items) {
				e.cursor++
				if e.cursor == len(e.items) {
					return e.line.Focus(), false
				}
			}
			return nil, false
		case "enter":
			if v := strings.TrimSpace(e.line.val); v != "" && e.cursor == len(e.items) && !e.absent[v] {
				e.Add(v)
				e.line.set("")
				return nil, true
			}
			return nil, false
		case "ctrl+d":
			if e.cursor < len(e.items) {
				e.items = slices.Delete(e.items, e.cursor, e.cursor+1)
				if e.cursor == len(e.items) && e.cursor > 0 {
					e.cursor-- // the item before stays selected for the next removal
				}
				if e.cursor == len(e.items) {
					return e.line.Focus(), true
				}
				return nil, true
			}
			return nil, false // the line's text is the user's: ctrl+d removes items only
		}
		if e.cursor < len(e.items) && k.Text != "" {
			// Typing on an item goes on in the line, where text is written.
			e.cursor = len(e.items)
			focus := e.line.Focus()
			cmd, changed := e.line.Update(msg)
			return tea.Batch(focus, cmd), changed
		}
		if e.cursor < len(e.items) {
			return nil, false
		}
	}
	return e.line.Update(msg)
}

// idle says why ctrl+d did nothing on the line: it removes items only.
func (e *listEditor) idle(k tea.KeyPressMsg) string {
	if v := strings.TrimSpace(e.line.val); k.String() == "enter" && e.absent[v] {
		return "not added: no such file " + v + " · correct the path (tab completes) or ctrl+o to pick one"
	}
	if k.String() != "ctrl+d" || e.cursor < len(e.items) {
		return ""
	}
	if len(e.items) == 0 {
		return "ctrl+d removes a listed item; there is none yet (backspace erases what you typed)"
	}
	return "ctrl+d removes the item ↑ selects; what you typed stays (backspace erases it)"
}

// Full reports that the list holds as many items as the model takes: the
// form then moves on, so what is typed next goes to the next field rather
// than become an item too many.
func (e *listEditor) Full() bool {
	return e.f.MaxItems > 0 && len(e.items) >= e.f.MaxItems
}

// Add appends an item (enter, or a file from the picker).
func (e *listEditor) Add(v string) {
	e.items = append(e.items, v)
	e.cursor = len(e.items)
}

// Value counts a path still being typed, so the check already reads it.
func (e *listEditor) Value() any {
	items := e.items
	if v := e.typed(); v != "" {
		items = append(slices.Clip(items), v)
	}
	return listValue(items)
}

// typed is what the line holds, not yet added.
func (e *listEditor) typed() string { return strings.TrimSpace(e.line.val) }

// listValue is items as a field's value: nil for none.
func listValue(items []string) any {
	if len(items) == 0 {
		return nil
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

func (e *listEditor) Set(v any) {
	e.items = nil
	switch x := v.(type) {
	case string:
		if x != "" {
			e.items = []string{x}
		}
	case []any:
		for _, it := range x {
			if s, ok := it.(string); ok {
				e.items = append(e.items, s)
			} else {
				e.items = append(e.items, catalog.FormatValue(it))
			}
		}
	case []string:
		e.items = slices.Clone(x)
	}
	e.cursor = len(e.items)
}

// Counter reads "images 2 of 1-7": how many there are against the bounds.
func (e *listEditor) Counter() string {
	n := len(e.items)
	lo, hi := e.f.MinItems, e.f.MaxItems
	switch {
	case hi == 0 && lo == 0:
		return fmt.Sprintf("%d", n)
	case hi == 0:
		return fmt.Sprintf("%d of %d or more", n, lo)
	case lo == hi:
		return fmt.Sprintf("%d of %d", n, lo)
	case lo == 0:
		return fmt.Sprintf("%d of at most %d", n, hi)
	}
	return fmt.Sprintf("%d of %d-%d", n, lo, hi)
}

// View lists the items, each with what the form measured of it (info), then
// the input line.
func (e *listEditor) View(s *Styles, width int, focused bool) string {
	return e.view(s, width, focused, nil)
}

// itemNames are what the items of a list stand for, where their place
// means something (the catalog says where).
func (e *listEditor) itemNames() []string { return e.f.ItemNames }

func (e *listEditor) view(s *Styles, width int, focused bool, info func(string) (string, bool)) string {
	var b strings.Builder
	names := e.itemNames()
	for i, it := range e.items {
		mark := "  "
		st := s.Value
		if focused && i == e.cursor {
			mark, st = "› ", s.Selected
		}
		// Numbered from 0, as messages name them: images[1].
		line := mark + fmt.Sprintf("[%d] ", i)
		if i < len(names) {
			line += s.Dim.Render(names[i] + " ")
		}
		line += st.Render(shortMedia(it))
		if info != nil {
			if text, bad := info(it); text != "" {
				if bad {
					line += "  " + s.Error.Render(text)
				} else {
					line += "  " + s.Dim.Render(text)
				}
			}
		}
		b.WriteString(textutil.Truncate(line, width) + "\n")
	}
	if focused || len(e.items) == 0 || strings.TrimSpace(e.line.val) != "" {
		if n := len(e.items); n < len(names) {
			// The line says which frame it adds.
			b.WriteString(s.Dim.Render(fmt.Sprintf("  [%d] %s:", n, names[n])) + "\n")
		}
		b.WriteString(e.line.View(s, width, focused && e.cursor == len(e.items)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// shortMedia shows a data URI by its type and size, never its base64.
func shortMedia(v string) string {
	if !catalog.IsDataURI(v) {
		return v
	}
	if isPlaceholder(v) {
		return placeholderText(v)
	}
	meta, data, ok := strings.Cut(v, ",")
	if !ok {
		return textutil.Truncate(v, 60)
	}
	return fmt.Sprintf("%s,… (%s)", textutil.Truncate(meta, 40), api.ByteSize(int64(len(data)*3/4)))
}

// mediaExtensions are the file types a picker and completion offer for a
// field: bmp only where the field takes it (lip-sync faces).
func mediaExtensions(f catalog.Field) []string {
	switch f.Media {
	case catalog.MediaImage:
		formats := f.ImageFormats
		if len(formats) == 0 {
			formats = []string{"png", "jpg", "jpeg", "webp"}
		}
		var out []string
		for _, x := range formats {
			out = append(out, "."+x)
		}
		return out
	case catalog.MediaVideo:
		return []string{".mp4", ".mov", ".avi"}
	case catalog.MediaAudio:
		return []string{".mp3", ".wav", ".m4a", ".aac"}
	}
	return nil
}

// completePath lists the folders and the files of the given types (any
// file for none) that start with what was typed, as paths the user could
// have typed.
func completePath(dir, typed string, exts []string, dirsOnly bool) []string {
	expanded := typed
	if strings.HasPrefix(typed, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			expanded = filepath.Join(home, typed[2:]) + map[bool]string{true: "/"}[strings.HasSuffix(typed, "/")]
		}
	}
	base := expanded
	if !filepath.IsAbs(base) {
		base = filepath.Join(dir, base)
	}
	parent, prefix := filepath.Dir(base), filepath.Base(base)
	typedDir := typed[:strings.LastIndex(typed, "/")+1]
	if strings.HasSuffix(typed, "/") {
		parent, prefix, typedDir = base, "", typed
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []string
	for _, en := range entries {
		name := en.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		isDir := en.IsDir()
		if en.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(parent, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		switch {
		case isDir:
			out = append(out, typedDir+name+"/")
		case dirsOnly:
		case len(exts) == 0 || slices.Contains(exts, strings.ToLower(filepath.Ext(name))):
			out = append(out, typedDir+name)
		}
	}
	sort.Strings(out)
	return out
}

func commonPrefix(list []string) string {
	if len(list) == 0 {
		return ""
	}
	p := list[0]
	for _, s := range list[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
