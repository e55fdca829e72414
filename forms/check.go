package forms

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
)

// Check is what the form knows of its request after reading its local
// files and running the catalog's rules: the body as it would be sent, the
// broken rules by field, and the figures of each file.
type Check struct {
	// Body is the request as it goes on the wire, data URIs included.
	Body map[string]any
	// Size is the body's length in bytes, against catalog.MaxBodyBytes.
	Size int
	// SentSize and Uploaded are, when the images go through the upload
	// flow, the length of the body that holds their URIs and the bytes
	// uploaded before it (both 0 otherwise).
	SentSize, Uploaded int
	// Errors are the rules the request breaks, by field; Missing the
	// required fields left empty (shown once the user has been there);
	// Broken all of them.
	Errors  map[string][]string
	Missing map[string][]string
	Broken  []string
	// Warnings are fields the catalog does not know: sent, not blocked.
	Warnings []string
	// Media is what was measured of each local file or data URI, by value
	// as typed: "png 1024×768 · 212 KB".
	Media map[string]MediaNote
	// Inert are the values the service ignores for this model and these
	// settings, by field, with why (sent all the same).
	Inert map[string]string
	// Defaults are the values the service applies to fields left unset.
	Defaults []string
	// Cost is the price, labelled with where it comes from.
	Cost string
	// Spent is today's and this month's spending; OverCap, when set, is
	// the credit cap this request would pass (the review asks first).
	Spent, OverCap string
	// Sources maps the SHA-256 of each file sent to its path, so a
	// duplicate can read the file again.
	Sources map[string]string
}

// MediaNote is what the form measured of one media value.
type MediaNote struct {
	Text string
	Bad  bool
	// Absent: no file has this path (a list does not add it).
	Absent bool
}

// Check is the latest check of the form's values (nil before the first).
func (f *Form) Check() *Check { return f.check }

// absent are the local paths no file answers to.
func (c *Check) absent() map[string]bool {
	out := map[string]bool{}
	for v, n := range c.Media {
		if n.Absent {
			out[v] = true
		}
	}
	return out
}

// Checked reports whether the latest check saw the values as they are.
func (f *Form) Checked() bool { return f.check != nil && f.checkedRev == f.rev }

// OK reports whether the request breaks no rule.
func (c *Check) OK() bool { return c != nil && len(c.Broken) == 0 }

type checkedMsg struct {
	form, rev int
	check     *Check
}

// checkCmd checks the current values in the background: reading a 10 MB
// image and validating it takes longer than a keypress may.
func (f *Form) checkCmd() tea.Cmd {
	f.checking = true
	raw := f.Values()
	id, rev, op, spec := f.id, f.rev, f.op, f.spec
	dir, quote, cache, voices := f.ctx.Dir, f.ctx.Quote, f.ctx.cache(), slices.Clone(f.ctx.Voices)
	sizeRule, spending, uploading := f.ctx.SizeRule, f.ctx.Spending, f.ctx.Uploading
	return func() tea.Msg {
		c := runCheck(op, spec, raw, dir, quote, cache)
		if spending != nil && c.Body != nil {
			c.Spent, c.OverCap = spending(op, c.Body)
		}
		if c.Body != nil {
			c.holdSize(op, sizeRule)
			if uploading != nil && uploading(c.Size) {
				c.measureUploads(op)
			}
		}
		c.libraryRules(op, raw, dir, voices)
		return checkedMsg{form: id, rev: rev, check: c}
	}
}

// libraryRules are the checks that need what is on this machine: a voice
// id already in the library cannot be cloned again ("using an existing
// voice_id causes an error"), and a local file given where the service
// fetches a URL cannot be uploaded.
func (c *Check) libraryRules(op api.Operation, raw map[string]any, dir string, voices []string) {
	if id, _ := raw["voice_id"].(string); op == api.OpAudioClone && slices.Contains(voices, strings.TrimSpace(id)) {
		c.add("voice_id", fmt.Sprintf("voice_id: %s is already a voice in your library; cloning it again fails, choose a new id", strings.TrimSpace(id)))
	}
	for name, v := range raw {
		s, ok := v.(string)
		fd, known := catalog.FieldOf(op, name)
		if !ok || !known || fd.Kind != catalog.KindURL || fd.Media == catalog.MediaNone || !catalog.IsLocalPath(s) {
			continue
		}
		path := s
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if _, err := os.Stat(path); err == nil {
			// This says why the file is no URL: the rule's bare "must be
			// an http(s) URL" would say it again.
			c.drop(name, name+": must be an http(s) URL")
			c.add(name, fmt.Sprintf("%s: the service fetches the %s from a URL and takes no upload here; put %s where it can be reached (a public link) and give that URL", name, fd.Media, s))
		}
	}
}

// drop removes the field's messages that start with prefix.
func (c *Check) drop(field, prefix string) {
	said := func(m string) bool { return strings.HasPrefix(m, prefix) }
	c.Errors[field] = slices.DeleteFunc(c.Errors[field], said)
	if len(c.Errors[field]) == 0 {
		delete(c.Errors, field)
	}
	c.Broken = slices.DeleteFunc(c.Broken, said)
}

func (c *Check) add(field, msg string) {
	c.Errors[field] = append(c.Errors[field], msg)
	c.Broken = append(c.Broken, msg)
}

func runCheck(op api.Operation, spec *catalog.Spec, raw map[string]any, dir string, quote func(api.Operation, map[string]any) string, cache *fileCache) *Check {
	c := &Check{Errors: map[string][]string{}, Missing: map[string][]string{}, Media: map[string]MediaNote{}, Sources: map[string]string{}}
	body := make(map[string]any, len(raw))
	for name, v := range raw {
		field, known := spec.Field(name)
		if !known {
			field, known = catalog.FieldOf(op, name)
		}
		if known {
			v = resolveMedia(field, name, v, dir, cache, c)
		}
		body[name] = v
	}
	cache.keepOnly(c.Sources)
	lost, lostItem := map[string]bool{}, map[string]bool{}
	for name, msgs := range c.Errors {
		lost[name] = true // only placeholders and unreadable files so far
		for _, m := range msgs {
			if label, _, ok := strings.Cut(m, ": "); ok && label != name {
				lostItem[label] = true // a key frame's image: its message names it
			}
		}
	}
	ready, err := catalog.Prepare(op, body)
	if err != nil {
		c.add("request", "request: cannot be written as JSON: "+err.Error())
		return c
	}
	known := map[string]bool{}
	for _, n := range catalog.FieldNames(op) {
		known[n] = true
	}
	for _, e := range ready.Errors {
		if lost[e.Field] && (strings.Contains(e.Message, "data URI") || strings.Contains(e.Message, "must be an http(s) URL")) {
			// The lost file is already said: its placeholder is no data URI,
			// its path no URL (a rule that names the field's own data URI,
			// "data:image/...;base64, URI").
			continue
		}
		if label, _, _ := strings.Cut(e.Message, ": "); lostItem[label] {
			continue // the same, for an item of the field
		}
		if !known[e.Field] && e.Reason == api.ReasonFieldUnwanted {
			c.Warnings = append(c.Warnings, e.Field+": not in clapper's tables; sent as written (the service may be newer)")
			continue
		}
		if e.Reason == api.ReasonFieldLacking {
			c.Missing[e.Field] = append(c.Missing[e.Field], e.Message)
		} else {
			c.Errors[e.Field] = append(c.Errors[e.Field], e.Message)
		}
		c.Broken = append(c.Broken, e.Message)
	}
	c.Body, c.Size = ready.Body, ready.Size
	c.Inert = catalog.Inert(op, spec.Model, c.Body)
	for _, fd := range spec.Fields {
		if _, set := raw[fd.Name]; !set && fd.Default != nil {
			c.Defaults = append(c.Defaults, fd.Name+" "+defaultText(fd))
		}
	}
	if quote != nil {
		c.Cost = quote(op, c.Body)
	}
	return c
}

func defaultText(fd catalog.Field) string {
	v := catalog.FormatValue(fd.Default)
	switch {
	case fd.Kind == catalog.KindBool && v == "true":
		return "yes"
	case fd.Kind == catalog.KindBool:
		return "no"
	case fd.Unit == "seconds":
		return v + " s"
	}
	return v
}

// resolveMedia reads the local files a media value names into data URIs
// and notes what each measures. Subjects carry media inside.
func resolveMedia(f catalog.Field, name string, v any, dir string, cache *fileCache, c *Check) any {
	// oneAs reads one value; label names it in messages (a key frame's
	// image_settings[1].key_image), which stay the field's.
	oneAs := func(label string, m catalog.Media, s string) any {
		switch {
		case isPlaceholder(s):
			msg := label + ": " + placeholderText(s) + " is gone or has changed since it was sent; choose the file again"
			c.Media[s] = MediaNote{Text: "gone or changed; choose it again", Bad: true}
			c.Errors[name] = append(c.Errors[name], msg)
			c.Broken = append(c.Broken, msg)
			return s
		case catalog.IsLocalPath(s):
			ent := cache.read(dir, s, m)
			if ent.err != "" {
				c.Media[s] = MediaNote{Text: ent.err, Bad: true, Absent: ent.absent}
				c.Errors[name] = append(c.Errors[name], label+": "+ent.err)
				c.Broken = append(c.Broken, label+": "+ent.err)
				return s
			}
			c.Media[s] = MediaNote{Text: ent.note}
			c.Sources[ent.sha] = ent.path
			return ent.uri
		case catalog.IsDataURI(s):
			if d, err := catalog.ParseDataURI(s); err == nil {
				c.Media[s] = MediaNote{Text: describeMedia(d.Data, d.ContentType)}
			}
		}
		return s
	}
	one := func(m catalog.Media, s string) any { return oneAs(name, m, s) }
	list := func(m catalog.Media, v any) any {
		switch x := v.(type) {
		case string:
			return one(m, x)
		case []any:
			out := make([]any, len(x))
			for i, it := range x {
				if s, ok := it.(string); ok {
					out[i] = one(m, s)
				} else {
					out[i] = it
				}
			}
			return out
		}
		return v
	}
	switch f.Kind {
	case catalog.KindMedia, catalog.KindMediaList:
		return list(f.Media, v)
	case catalog.KindKeyFrames:
		frames, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(frames))
		for i, it := range frames {
			obj, isObj := it.(map[string]any)
			img, isText := obj["key_image"].(string)
			if !isObj || !isText {
				out[i] = it
				continue
			}
			cp := maps.Clone(obj)
			cp["key_image"] = oneAs(fmt.Sprintf("%s[%d].key_image", name, i), catalog.MediaImage, img)
			out[i] = cp
		}
		return out
	case catalog.KindSubjects:
		subjects, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(subjects))
		for i, it := range subjects {
			obj, ok := it.(map[string]any)
			if !ok {
				out[i] = it
				continue
			}
			cp := make(map[string]any, len(obj))
			for k, x := range obj {
				switch k {
				case "images":
					x = list(catalog.MediaImage, x)
				case "videos":
					x = list(catalog.MediaVideo, x)
				}
				cp[k] = x
			}
			out[i] = cp
		}
		return out
	}
	return v
}

// placeholderText names what a placeholder stood for: the file it was
// read from when known, its type and size.
func placeholderText(s string) string {
	ct := strings.TrimPrefix(strings.SplitN(s, ";", 2)[0], "data:")
	size := ""
	if m := placeholderBytes.FindStringSubmatch(s); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			size = ", " + api.ByteSize(n)
		}
	}
	if m := placeholderFile.FindStringSubmatch(s); m != nil {
		if p, err := url.PathUnescape(m[1]); err == nil {
			return fmt.Sprintf("the file %s (%s%s)", api.CleanText(p), ct, size)
		}
	}
	return fmt.Sprintf("a local file (%s%s)", ct, size)
}

var (
	placeholderBytes = regexp.MustCompile(`;bytes=([0-9]+)`)
	placeholderFile  = regexp.MustCompile(`;file=([^;]*)`)
)

// isPlaceholder: history keeps a data URI as data:<type>;sha256=…;bytes=…
// (no comma); a duplicated task whose file is gone still carries it.
func isPlaceholder(s string) bool {
	return catalog.IsDataURI(s) && !strings.Contains(s, ",") && strings.Contains(s, ";sha256=")
}

// describeMedia measures a file's content: format and size of an image,
// frame size and length of a video, length of a WAV.
func describeMedia(data []byte, contentType string) string {
	size := api.ByteSize(int64(len(data)))
	if info, err := catalog.InspectImage(data); err == nil {
		return fmt.Sprintf("%s %d×%d · %s", info.Format, info.Width, info.Height, size)
	}
	kind := contentType[strings.IndexByte(contentType, '/')+1:]
	parts := []string{kind}
	if w, h, ok := catalog.MP4VideoSize(data); ok {
		parts = append(parts, fmt.Sprintf("%d×%d", w, h))
	}
	if d, ok := catalog.MP4Duration(data); ok {
		parts = append(parts, fmt.Sprintf("%.1f s", d))
	} else if d, err := catalog.WAVDuration(data); err == nil {
		parts = append(parts, fmt.Sprintf("%.1f s", d))
	}
	return strings.Join(append(parts, size), " · ")
}

// fileCache keeps the files a form read while their size and time are
// unchanged (a check runs after every keypress). It keeps only what a file
// holds, never what a field made of it: a video refused by an image field
// is read afresh and taken by a video field, and a file that could not be
// read is tried again at the next check.
type fileCache struct {
	mu      sync.Mutex
	entries map[fileKey]*fileEntry
}

// fileKey is a file as it is now: the same path rewritten is another file.
type fileKey struct {
	path      string
	size, mod int64
}

type fileEntry struct {
	path, sha, note string
	// content is kept without its bytes: they live once, as base64 inside
	// the data URIs made of the file, by the content type they declare (an
	// image field declares what its bytes are).
	content catalog.FileContent
	b64     string
	uris    map[string]string
}

// fileUse is a file as one field takes it: its data URI, or why not.
type fileUse struct {
	path, uri, sha, note, err string
	absent                    bool
}

func (ctx *Context) cache() *fileCache {
	if ctx.files == nil {
		ctx.files = &fileCache{entries: map[fileKey]*fileEntry{}}
	}
	return ctx.files
}

func (fc *fileCache) read(dir, typed string, m catalog.Media) fileUse {
	path := typed
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fileUse{err: typed + ": no such file", absent: true}
	}
	k := fileKey{path: path, size: st.Size(), mod: st.ModTime().UnixNano()}
	fc.mu.Lock()
	ent := fc.entries[k]
	fc.mu.Unlock()
	if ent == nil {
		content, err := catalog.ReadMediaFile(path, m)
		if err != nil {
			return fileUse{err: fieldError(err, path, typed)}
		}
		sum := sha256.Sum256(content.Data)
		ent = &fileEntry{path: path, sha: hex.EncodeToString(sum[:]), note: describeMedia(content.Data, content.ContentType),
			b64: base64.StdEncoding.EncodeToString(content.Data), uris: map[string]string{}}
		content.Data = nil
		ent.content = content
		fc.mu.Lock()
		fc.entries[k] = ent
		fc.mu.Unlock()
	}
	ct, err := ent.content.TypeAs(path, m)
	if err != nil {
		return fileUse{err: fieldError(err, path, typed)}
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	uri, ok := ent.uris[ct]
	if !ok {
		uri = "data:" + ct + ";base64," + ent.b64
		ent.uris[ct] = uri
		if len(ent.uris) == 1 {
			ent.b64 = uri[len(uri)-len(ent.b64):] // one copy of the bytes, not two
		}
	}
	return fileUse{path: path, uri: uri, sha: ent.sha, note: ent.note}
}

// fieldError says what is wrong with a file by the name the user typed.
func fieldError(err error, path, typed string) string {
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), path+": "), path, typed)
	if !strings.Contains(msg, typed) {
		msg = typed + ": " + msg
	}
	return msg
}

// keepOnly drops the files the form no longer takes: each may hold 20 MB.
func (fc *fileCache) keepOnly(sources map[string]string) {
	keep := map[string]bool{}
	for _, p := range sources {
		keep[p] = true
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for k := range fc.entries {
		if !keep[k.path] {
			delete(fc.entries, k)
		}
	}
}

// sortedKeys lists a body's fields in a stable order for the review.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
