package forms

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"clapper/api"
	"clapper/internal/fsutil"
)

// Draft is a form as it was left: kept when the user leaves the page and
// across restarts, one per operation. Local files stay paths; they are read
// again when the form is checked.
type Draft struct {
	Op       api.Operation  `json:"operation"`
	Model    string         `json:"model,omitempty"`
	Values   map[string]any `json:"values"`
	Advanced bool           `json:"advanced,omitempty"`
	Focus    string         `json:"focus,omitempty"`
	// Typed is what a list's line held, not yet added: it goes back to
	// the line, not into the list (a path with no file stays there to be
	// corrected, after a restart too).
	Typed map[string]string `json:"typed,omitempty"`
}

// Draft returns the form's state to keep.
func (f *Form) Draft() Draft {
	d := Draft{Op: f.op, Model: f.model, Values: f.Values(), Advanced: f.advanced, Focus: f.focusedName()}
	for name, e := range f.editors {
		if l, ok := e.(*listEditor); ok && l.typed() != "" {
			if d.Typed == nil {
				d.Typed = map[string]string{}
			}
			d.Typed[name] = l.typed()
			if v := listValue(l.items); v != nil {
				d.Values[name] = v
			} else {
				delete(d.Values, name)
			}
		}
	}
	return d
}

// Blank reports whether the form holds nothing but its model: nothing to
// keep as a draft.
func (f *Form) Blank() bool {
	for name, e := range f.editors {
		if name != "model" && e.Value() != nil {
			return false
		}
	}
	return true
}

// Restore builds a form from a draft.
func Restore(ctx *Context, styles *Styles, d Draft) (*Form, error) {
	f, err := New(ctx, styles, d.Op, d.Model)
	if err != nil {
		f, err = New(ctx, styles, d.Op, "")
		if err != nil {
			return nil, err
		}
	}
	f.advanced = d.Advanced
	f.Apply(d.Values)
	for name, text := range d.Typed {
		if l, ok := f.editors[name].(*listEditor); ok {
			l.line.Set(text)
		}
	}
	for i, r := range f.rows {
		if r.kind == rowField && r.name == d.Focus {
			f.focus = i
		}
	}
	return f, nil
}

// Drafts keeps drafts as JSON files in a directory (<data>/drafts): one per
// operation, and which one was open last.
type Drafts struct{ Dir string }

func (d Drafts) path(op api.Operation) string { return filepath.Join(d.Dir, string(op)+".json") }

// Save writes a draft atomically, so a crash never leaves half a file.
func (d Drafts) Save(dr Draft) error {
	b, err := json.MarshalIndent(dr, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return err
	}
	if err := fsutil.WriteFile(d.path(dr.Op), b, 0o600); err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(d.Dir, "last"), []byte(dr.Op), 0o600)
}

func (d Drafts) sentPath(op api.Operation) string {
	return filepath.Join(d.Dir, string(op)+".sent.json")
}

// Sent keeps a request the service took as its operation's last sent one,
// and ends its draft: the next form of the operation starts fresh, the
// sent values one key away.
func (d Drafts) Sent(dr Draft) error {
	b, err := json.MarshalIndent(dr, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return err
	}
	if err := fsutil.WriteFile(d.sentPath(dr.Op), b, 0o600); err != nil {
		return err
	}
	return d.Remove(dr.Op)
}

// Remove ends an operation's draft (none is fine).
func (d Drafts) Remove(op api.Operation) error {
	if err := os.Remove(d.path(op)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// LoadSent reads the last request of an operation the service took.
func (d Drafts) LoadSent(op api.Operation) (Draft, bool, error) {
	return d.load(op, d.sentPath(op))
}

// Load reads an operation's draft; ok is false when there is none.
func (d Drafts) Load(op api.Operation) (Draft, bool, error) {
	return d.load(op, d.path(op))
}

func (d Drafts) load(op api.Operation, path string) (Draft, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Draft{}, false, nil
	}
	if err != nil {
		return Draft{}, false, err
	}
	var dr Draft
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&dr); err != nil {
		return Draft{}, false, errors.New("draft " + path + " is damaged: " + err.Error())
	}
	dr.Op = op
	return dr, true, nil
}

// Last names the operation whose form was open last, if any.
func (d Drafts) Last() (api.Operation, bool) {
	b, err := os.ReadFile(filepath.Join(d.Dir, "last"))
	if err != nil {
		return "", false
	}
	op := api.Operation(strings.TrimSpace(string(b)))
	for _, o := range api.Operations() {
		if o == op {
			return op, true
		}
	}
	return "", false
}

// Has lists the operations with a draft.
func (d Drafts) Has() map[api.Operation]bool {
	out := map[api.Operation]bool{}
	for _, op := range api.Operations() {
		if _, err := os.Stat(d.path(op)); err == nil {
			out[op] = true
		}
	}
	return out
}

// RememberSources records which local file each sent data URI came from
// (by the SHA-256 history keeps of it), so a duplicate can read it again.
func (d Drafts) RememberSources(sources map[string]string) error {
	if len(sources) == 0 {
		return nil
	}
	all := d.sources()
	for sha, p := range sources {
		all[sha] = p
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(d.Dir, "sources.json"), b, 0o600)
}

func (d Drafts) sources() map[string]string {
	all := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(d.Dir, "sources.json")); err == nil {
		_ = json.Unmarshal(b, &all) // a damaged file only loses the links
	}
	return all
}

// placeholderSHA reads the digest out of history's data URI placeholder.
var placeholderSHA = regexp.MustCompile(`;sha256=([0-9a-f]{64})`)

// Relink replaces each placeholder of a duplicated request with the path of
// the local file it was read from, when that file still holds the same
// bytes; the others stay placeholders, naming the file they came from, and
// the form flags them.
func (d Drafts) Relink(v any) any {
	sources := d.sources()
	return mapStrings(v, func(x string) any {
		if !isPlaceholder(x) {
			return x
		}
		m := placeholderSHA.FindStringSubmatch(x)
		if m == nil {
			return x
		}
		p, ok := sources[m[1]]
		switch {
		case !ok:
			return x
		case !sameFile(p, m[1]):
			return x + ";file=" + url.PathEscape(p)
		}
		return p
	})
}

func sameFile(path, sha string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) == sha
}
