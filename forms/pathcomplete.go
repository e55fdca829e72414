package forms

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// PathCompleter is the one Tab completion of local paths, shared by every
// field that takes one: a form's media and media-list fields, a subject's
// images and videos, the stored-subject dialog and the download folder.
// It does what bash does: Tab writes the longest common prefix of the
// files and folders that start with what was typed; when that adds nothing
// and several match, Tab lists them under the field; when nothing matches,
// it says so. Tab on a path being typed never leaves the field and never
// adds the path anywhere; only a path that names a file whole (nothing
// left to complete) lets Tab go on, as on any field.
//
// The folder is read in a command, never in Update: a Tab pressed before
// the listing of the text arrives is kept, and applied when it does.
type PathCompleter struct {
	// Dir is what relative paths are read from ("" is the working folder).
	Dir string
	// Exts are the file types offered (".png"); nil offers every file.
	Exts []string
	// DirsOnly offers folders alone (a download folder).
	DirsOnly bool
	// List completes the last item of a comma-separated list.
	List bool

	listed  PathsListedMsg
	pending string // the text a Tab was pressed on before its listing came
	waiting bool
	// shown are the candidates listed under the field after a Tab, note
	// what the last Tab found when it found nothing.
	shown []string
	note  string
}

// NewPathCompleter completes paths of a field's media from dir.
func NewPathCompleter(dir string, f catalog.Field) *PathCompleter {
	return &PathCompleter{Dir: dir, Exts: mediaExtensions(f)}
}

// PathsListedMsg is the candidates for a typed path, listed in a command
// for the completer c.
type PathsListedMsg struct {
	c     *PathCompleter
	typed string
	cands []string
}

// For reports that the listing was read for the completer c.
func (m PathsListedMsg) For(c *PathCompleter) bool { return m.c == c }

// word splits the text into what stays (earlier items of a list) and the
// path being typed.
func (c *PathCompleter) word(text string) (head, w string) {
	if c.List {
		if i := strings.LastIndex(text, ","); i >= 0 {
			head, text = text[:i+1]+" ", text[i+1:]
		}
	}
	return head, strings.TrimLeft(text, " ")
}

// Changed is told of every new text: the list under the field goes, and
// the folder of the new text is read.
func (c *PathCompleter) Changed(text string) tea.Cmd {
	c.shown, c.note = nil, ""
	return c.read(text)
}

// read lists, in a command, the candidates for the text's path.
func (c *PathCompleter) read(text string) tea.Cmd {
	_, w := c.word(text)
	if !catalog.IsLocalPath(w) {
		return nil
	}
	dir, exts, dirsOnly := c.Dir, c.Exts, c.DirsOnly
	return func() tea.Msg {
		return PathsListedMsg{c: c, typed: text, cands: completePath(dir, w, exts, dirsOnly)}
	}
}

// Take files a listing (ok); when a Tab waits for it and the field still
// holds the text it was pressed on (current), the Tab is applied and the
// new text returned (changed), with the command that lists it.
func (c *PathCompleter) Take(msg tea.Msg, current string) (text string, cmd tea.Cmd, changed, ok bool) {
	l, ok := msg.(PathsListedMsg)
	if !ok || l.c != c {
		return "", nil, false, false
	}
	c.listed = l
	if !c.waiting || c.pending != l.typed || current != l.typed {
		return current, nil, false, true
	}
	c.waiting = false
	out, cmd := c.Tab(l.typed)
	return out, cmd, out != l.typed, true
}

// Wants reports that Tab on this text is completion: a path being typed,
// not empty and not already a whole file.
func (c *PathCompleter) Wants(text string) bool {
	_, w := c.word(text)
	if !catalog.IsLocalPath(w) {
		return false
	}
	return !c.Whole(text)
}

// Whole reports that the listing read for the text shows its path names a
// file (or, for folders only, a folder), nothing left to complete.
func (c *PathCompleter) Whole(text string) bool {
	_, w := c.word(text)
	if c.listed.c != c || c.listed.typed != text {
		return false
	}
	for _, p := range c.listed.cands {
		if p == w || (c.DirsOnly && p == w+"/") {
			return len(c.listed.cands) == 1 || !strings.HasSuffix(p, "/")
		}
	}
	return false
}

// Tab completes the text: the new text, and the command that lists it.
func (c *PathCompleter) Tab(text string) (string, tea.Cmd) {
	head, w := c.word(text)
	if c.listed.c != c || c.listed.typed != text {
		c.pending, c.waiting = text, true
		return text, c.read(text)
	}
	cands := c.listed.cands
	c.shown, c.note = nil, ""
	if len(cands) == 0 {
		what := "file or folder"
		if c.DirsOnly {
			what = "folder"
		}
		c.note = "no " + what + " starts with " + api.CleanLine(w)
		return text, nil
	}
	if len(cands) > 1 {
		c.shown = cands
	}
	if p := commonPrefix(cands); len(p) > len(w) && strings.HasPrefix(p, w) {
		out := head + p
		return out, c.read(out)
	}
	return text, nil
}

// Hint is the line under the field: the candidates after a Tab, or why
// it found none; "" when there is nothing to say.
func (c *PathCompleter) Hint(width int) string {
	if c.note != "" {
		return textutil.Truncate("  "+c.note, width)
	}
	if len(c.shown) == 0 {
		return ""
	}
	names := make([]string, 0, 5)
	for i, p := range c.shown {
		if i == 4 {
			names = append(names, fmt.Sprintf("… %d more", len(c.shown)-4))
			break
		}
		// Names as ls shows them: the folder typed is already on the line.
		base := filepath.Base(strings.TrimSuffix(p, "/"))
		if strings.HasSuffix(p, "/") {
			base += "/"
		}
		names = append(names, api.CleanLine(base))
	}
	return textutil.Truncate("  "+strings.Join(names, "  ")+"  (tab lists, type more to choose)", width)
}

// Candidates are the paths the last Tab listed.
func (c *PathCompleter) Candidates() []string { return c.shown }
