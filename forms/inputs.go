package forms

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/api/catalog"
	exteditor "clapper/internal/editor"
	"clapper/internal/textutil"
)

// widget is the kind of input a field gets; it follows the chosen model's
// field (svcq2-pro takes any W:H as text, svcq4-preview a fixed list).
type widget int

const (
	widgetLine widget = iota
	widgetChoice
	widgetList
	widgetSubjects
	widgetTiming
	widgetArea
	widgetFrames
	widgetGallery
)

func widgetFor(f catalog.Field) widget {
	switch f.Kind {
	case catalog.KindEnum, catalog.KindBool:
		if f.Kind == catalog.KindEnum && f.OpenChoice {
			return widgetGallery // a long list that changes: browsed and filtered
		}
		if f.Kind == catalog.KindEnum && f.AnyRatio {
			return widgetLine // any W:H besides the listed ones
		}
		return widgetChoice
	case catalog.KindMediaList:
		return widgetList
	case catalog.KindSubjects:
		return widgetSubjects
	case catalog.KindTimingPrompts:
		return widgetTiming
	case catalog.KindKeyFrames:
		return widgetFrames
	case catalog.KindText:
		if multiLine(f) {
			return widgetArea
		}
	}
	return widgetLine
}

// widgetOf is the kind of an editor already made.
func widgetOf(e editor) widget {
	switch e.(type) {
	case *choiceEditor:
		return widgetChoice
	case *listEditor:
		return widgetList
	case *subjectsEditor:
		return widgetSubjects
	case *timingEditor:
		return widgetTiming
	case *areaEditor:
		return widgetArea
	case *framesEditor:
		return widgetFrames
	case *galleryEditor:
		return widgetGallery
	}
	return widgetLine
}

// newEditor picks the input for a field's kind.
func newEditor(ctx *Context, f catalog.Field) editor {
	switch widgetFor(f) {
	case widgetChoice:
		return newChoiceEditor(f)
	case widgetList:
		return newListEditor(ctx, f)
	case widgetSubjects:
		return newSubjectsEditor(ctx, f)
	case widgetTiming:
		return newTimingEditor(ctx, f)
	case widgetArea:
		return newAreaEditor(f)
	case widgetFrames:
		return newFramesEditor(ctx, f)
	case widgetGallery:
		return newGalleryEditor(f)
	}
	return newLineEditor(ctx, f)
}

// multiLine: prompts and texts to speak get an editor of several lines (and
// $EDITOR); short texts and the 1 MB payload stay on one line.
func multiLine(f catalog.Field) bool {
	switch f.Name {
	case "prompt", "text", "style", "prompt_text":
		return true
	}
	return f.Pauses != catalog.PausesNone
}

// lineEditor is a one-line input: numbers, URLs, voice ids, colours, JSON
// text and single media, the last two with tab completion of local paths
// and library voices.
type lineEditor struct {
	ctx   *Context
	f     catalog.Field
	val   string
	input *huh.Input
	// paths completes a local path of the field's media with tab.
	paths *PathCompleter
	// raw holds a field no table knows: its text is read as JSON when it
	// parses, as text otherwise.
	raw bool
}

// newRawEditor keeps a value of a field the catalog does not know (from a
// duplicated task or a newer service), editable as JSON.
func newRawEditor(ctx *Context, name string) *lineEditor {
	e := newLineEditor(ctx, catalog.Field{Name: name, Kind: catalog.KindJSONText, Help: "a field the catalog does not know; sent as written"})
	e.raw = true
	return e
}

func newLineEditor(ctx *Context, f catalog.Field) *lineEditor {
	e := &lineEditor{ctx: ctx, f: f, input: huh.NewInput().Prompt(""), paths: NewPathCompleter(ctx.Dir, f)}
	e.input.Value(&e.val)
	e.SetField(f)
	return e
}

func (e *lineEditor) SetField(f catalog.Field) {
	e.f = f
	e.paths.Exts = mediaExtensions(f)
	e.input.Placeholder(placeholder(f))
	if f.Kind == catalog.KindText && f.MaxChars > 0 && f.MaxChars < 1000 {
		e.input.CharLimit(0) // over-long text is flagged with its count, never cut
	}
}

// placeholder shows what the field takes where its input is empty.
func placeholder(f catalog.Field) string {
	if f.Kind == catalog.KindEnum && f.AnyRatio {
		return "default " + catalog.FormatValue(f.Default) + " · " + strings.Join(f.Options, " ") + " or any W:H"
	}
	if f.Default != nil {
		return "default " + catalog.FormatValue(f.Default)
	}
	switch {
	case f.Name == "video_creation_id":
		return "+ (extend) or u (upscale) on a finished video"
	case f.Kind == catalog.KindMedia:
		return "path to a local " + f.Media.String() + " file, or an http(s) URL"
	case f.Kind == catalog.KindURL && f.Media != catalog.MediaNone:
		return "http(s) URL of the " + f.Media.String()
	case f.Kind == catalog.KindURL:
		return "https://…"
	case f.Kind == catalog.KindColor:
		return "#RRGGBB"
	case f.Kind == catalog.KindJSONText:
		return `{"Label": "…"}`
	case f.Kind == catalog.KindJSONArray:
		return `[…]  JSON array`
	case f.Kind == catalog.KindVoiceID:
		return "voice id"
	}
	return ""
}

func (e *lineEditor) Focus() tea.Cmd { return tea.Batch(e.input.Focus(), e.listPaths()) }

// listPaths reads, in a command, the candidates for the text as a local
// path of the field's media.
func (e *lineEditor) listPaths() tea.Cmd {
	if e.f.Kind != catalog.KindMedia {
		return nil
	}
	return e.paths.Changed(e.val)
}
func (e *lineEditor) Blur() { e.input.Blur() }

func (e *lineEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	if text, cmd, changed, ok := e.paths.Take(msg, e.val); ok {
		if changed {
			e.set(text)
		}
		return cmd, changed
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case k.String() == "tab" && e.completes():
			text, cmd := e.paths.Tab(e.val)
			changed := text != e.val
			e.set(text)
			return cmd, changed
		case k.String() == "ctrl+l" && e.f.Kind == catalog.KindVoiceID && !e.cloning():
			// The next voice after the one shown: cloned ones, then the system's.
			voices := e.ctx.voiceChoices()
			next := voices[0]
			if i := slices.Index(voices, strings.TrimSpace(e.val)); i >= 0 {
				next = voices[(i+1)%len(voices)]
			}
			e.set(next)
			return nil, true
		case k.String() == "ctrl+l" && e.takesResults():
			e.set(e.ctx.nextResult(strings.TrimSpace(e.val)))
			return e.listPaths(), true
		}
	}
	before := e.val
	_, cmd := e.input.Update(msg)
	if e.val != before {
		cmd = tea.Batch(cmd, e.listPaths())
	}
	return cmd, e.val != before
}

func (e *lineEditor) set(s string) {
	e.val = s
	e.input.Value(&e.val)
	// The cursor goes after the text, where typing continues.
	e.input.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
}

// completes reports that tab is completion here: a local path being typed
// in a media field (tab then never leaves the field).
func (e *lineEditor) completes() bool {
	return e.f.Kind == catalog.KindMedia && e.paths.Wants(e.val)
}

func (e *lineEditor) OwnsKey(k tea.KeyPressMsg) bool {
	return k.String() == "tab" && e.completes()
}

func (e *lineEditor) Value() any {
	s := strings.TrimSpace(e.val)
	if s == "" {
		return nil
	}
	if e.raw {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
		return s
	}
	switch e.f.Kind {
	case catalog.KindInt, catalog.KindNumber:
		return number(s)
	case catalog.KindJSONArray:
		var v []any
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
		return s
	case catalog.KindText:
		return e.val
	}
	return s
}

func (e *lineEditor) Set(v any) {
	switch x := v.(type) {
	case nil:
		e.set("")
	case string:
		e.set(x)
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		e.set(string(b))
	default:
		e.set(catalog.FormatValue(x))
	}
}

func (e *lineEditor) Counter() string {
	f := e.f
	switch {
	case f.MaxChars > 0 && f.Kind == catalog.KindText:
		return fmt.Sprintf("%d/%d", utf8.RuneCountInString(e.val), f.MaxChars)
	case f.Name == "wm_position":
		return positionName(f, e.Value())
	case f.Range != nil:
		return rangeLabel(f)
	}
	return ""
}

// positionName reads a watermark position out of the model's own mapping
// (text2video svcq1 numbers the corners differently): "3 bottom-right".
func positionName(f catalog.Field, v any) string {
	n := catalog.FormatValue(f.Default)
	if v != nil {
		n = catalog.FormatValue(v)
	}
	for _, part := range strings.Split(f.Help, ", ") {
		if num, corner, ok := strings.Cut(part, " "); ok && num == n {
			return n + " = " + corner
		}
	}
	return rangeLabel(f)
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// number reads a typed number as JSON carries it: "7." and ".5" and "07"
// mean 7, 0.5 and 7; anything else (NaN, words) stays text, for the catalog
// to refuse with what was typed.
func number(s string) any {
	if jsonNumber.MatchString(s) {
		return json.Number(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(s, "xXpP_") {
		return s
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

// rangeLabel is a number's bounds as a form shows them: "3-16 s", "≥ 0".
func rangeLabel(f catalog.Field) string {
	r := f.Range
	unit := ""
	if f.Unit == "seconds" {
		unit = " s"
	}
	lo := strconv.FormatFloat(r.Min, 'f', -1, 64)
	sep := "-"
	if r.Min < 0 {
		sep = " to "
	}
	switch {
	case f.Name == "seed":
		return "whole number"
	case r.HasMax && r.Min == r.Max:
		return "only " + lo + unit
	case r.HasMax:
		return lo + sep + strconv.FormatFloat(r.Max, 'f', -1, 64) + unit
	}
	return "≥ " + lo + unit
}

func (e *lineEditor) Keys() []key.Binding {
	switch {
	case e.takesResults():
		return []key.Binding{completeKey, pickKey, nextResultKey}
	case e.f.Kind == catalog.KindMedia:
		return []key.Binding{completeKey, pickKey}
	case e.f.Kind == catalog.KindVoiceID && !e.cloning():
		return []key.Binding{nextVoiceKey}
	}
	return nil
}

// takesResults reports that ctrl+l steps through the images finished in
// history: an image field, and some to offer.
func (e *lineEditor) takesResults() bool {
	return e.f.Kind == catalog.KindMedia && e.f.Media == catalog.MediaImage && len(e.ctx.Results) > 0
}

// cloning: audio-clone's voice_id names a new voice; the library is what
// it must not be.
func (e *lineEditor) cloning() bool { return e.ctx.Op == api.OpAudioClone }

var (
	completeKey  = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	pickKey      = key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "pick a file"))
	nextVoiceKey = key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "next voice"))
	// nextResultKey steps an image field through the newest images made.
	nextResultKey = key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "an image made here"))
)

func (e *lineEditor) View(s *Styles, width int, focused bool) string {
	e.input.WithTheme(s.widgets)
	e.input.WithWidth(width)
	out := e.input.View()
	if note := e.ctx.resultNote(strings.TrimSpace(e.val)); focused && note != "" && e.takesResults() {
		out += "\n" + s.Dim.Render(textutil.Truncate("  "+note+" (ctrl+l: the next)", width))
	}
	if focused && e.f.Kind == catalog.KindVoiceID && !e.cloning() {
		hint := e.ctx.voiceNote(strings.TrimSpace(e.val))
		switch {
		case hint != "":
		case len(e.ctx.Voices) > 0:
			hint = "your voices: " + strings.Join(e.ctx.Voices, " · ") + ", then the system voices"
		default:
			hint = fmt.Sprintf("%d system voices", len(catalog.SystemVoices))
		}
		out += "\n" + s.Dim.Render(textutil.Truncate("  "+hint+" (ctrl+l)", width))
	}
	if hint := e.paths.Hint(width); focused && e.f.Kind == catalog.KindMedia && hint != "" {
		out += "\n" + s.Dim.Render(hint)
	}
	return out
}

// areaEditor is a multi-line text: prompts and texts to speak. ctrl+j
// starts a new line (enter moves on, as in every field); ctrl+e opens
// $EDITOR; ↑/↓ walk its lines and leave it at its first and last line;
// pause markers are checked as typed and the offending one shown.
type areaEditor struct {
	f    catalog.Field
	val  string
	area textarea.Model
	// pauseErr is the first broken pause marker, found as the text changes.
	pauseErr *catalog.PauseError
	// editorErr is why $EDITOR gave nothing back, until the next change.
	editorErr string
}

func newAreaEditor(f catalog.Field) *areaEditor {
	a := textarea.New()
	a.ShowLineNumbers = false
	a.Prompt = ""
	a.KeyMap.InsertNewline = newLineKey
	a.SetHeight(3)
	e := &areaEditor{f: f, area: a}
	e.SetField(f)
	return e
}

func (e *areaEditor) SetField(f catalog.Field) {
	e.f = f
	e.area.Placeholder = "type here · ctrl+j new line · ctrl+e $EDITOR"
	e.checkPauses()
}

func (e *areaEditor) Focus() tea.Cmd { return e.area.Focus() }
func (e *areaEditor) Blur()          { e.area.Blur() }

func (e *areaEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, editorKey) {
		return exteditor.Edit(e.f.Name, e.val, "txt"), false
	}
	var cmd tea.Cmd
	e.area, cmd = e.area.Update(msg)
	return cmd, e.sync()
}

// insert puts text at the cursor (a subject reference).
func (e *areaEditor) insert(text string) bool {
	e.area.InsertString(text)
	return e.sync()
}

// sync takes the text area's value, reporting whether it changed.
func (e *areaEditor) sync() bool {
	if v := e.area.Value(); v != e.val {
		e.val = v
		e.editorErr = ""
		e.checkPauses()
		return true
	}
	return false
}

// edited takes what $EDITOR left; a failed editor keeps the text as it was.
func (e *areaEditor) edited(msg exteditor.EditedMsg) bool {
	if msg.Err != nil {
		e.editorErr = "$EDITOR: " + api.CleanLine(msg.Err.Error())
		return false
	}
	changed := msg.Text != e.val
	e.Set(msg.Text)
	e.editorErr = ""
	return changed
}

func (e *areaEditor) checkPauses() {
	e.pauseErr = nil
	if e.f.Pauses == catalog.PausesNone {
		return
	}
	if _, err := catalog.SplitPauses(e.val, e.f.Pauses); err != nil {
		if pe, ok := err.(*catalog.PauseError); ok {
			e.pauseErr = pe
		}
	}
}

// OwnsKey: up and down move between the rows of the text, and leave the
// field from its first and last row, as in every field.
func (e *areaEditor) OwnsKey(k tea.KeyPressMsg) bool {
	row := e.area.LineInfo()
	switch k.String() {
	case "up":
		return e.area.Line() > 0 || row.RowOffset > 0
	case "down":
		return e.area.Line() < e.area.LineCount()-1 || row.RowOffset < row.Height-1
	}
	return false
}

func (e *areaEditor) Value() any {
	if strings.TrimSpace(e.val) == "" {
		return nil
	}
	return e.val
}

func (e *areaEditor) Set(v any) {
	s, _ := v.(string)
	if v != nil && s == "" {
		s = catalog.FormatValue(v)
	}
	e.val = s
	e.area.SetValue(s)
	e.checkPauses()
}

func (e *areaEditor) Counter() string {
	n := utf8.RuneCountInString(e.val)
	if e.f.MaxChars > 0 {
		return fmt.Sprintf("%d/%d", n, e.f.MaxChars)
	}
	if n > 0 {
		return fmt.Sprintf("%d characters", n)
	}
	return ""
}

var (
	newLineKey = key.NewBinding(key.WithKeys("ctrl+j"), key.WithHelp("ctrl+j", "new line"))
	editorKey  = key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "$EDITOR"))
)

func (e *areaEditor) Keys() []key.Binding { return []key.Binding{newLineKey, editorKey} }

func (e *areaEditor) View(s *Styles, width int, focused bool) string {
	e.area.SetStyles(areaStyles(s))
	e.area.SetWidth(width)
	lines := strings.Count(e.val, "\n") + 1 + len(e.val)/max(width, 1)
	if focused {
		e.area.SetHeight(min(max(lines, 3), 8))
	} else {
		e.area.SetHeight(min(max(lines, 1), 3))
	}
	out := e.area.View()
	if e.pauseErr != nil {
		out += "\n" + pointAt(s, e.val, e.pauseErr, width)
	}
	if e.editorErr != "" {
		out += "\n" + s.Error.Render(textutil.Truncate("✗ "+e.editorErr, width))
	}
	return out
}

// areaStyles draws a text area like the form's other inputs: no colour of
// its own, no highlighted cursor line.
func areaStyles(s *Styles) textarea.Styles {
	st := textarea.DefaultStyles(true)
	for _, state := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		state.Placeholder = s.Default
		state.Text = s.Value
		state.CursorLine = s.Value
		state.Prompt = s.Dim
	}
	st.Focused.Prompt = s.Bar
	st.Cursor.Color = s.Focused.GetBackground()
	return st
}

// pointAt shows the line holding a broken pause marker with the marker
// marked, and what is wrong with it.
func pointAt(s *Styles, text string, pe *catalog.PauseError, width int) string {
	start := strings.LastIndex(text[:pe.Offset], "\n") + 1
	end := strings.IndexByte(text[pe.Offset:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += pe.Offset
	}
	markEnd := min(pe.Offset+pe.Length, end)
	before, marker, after := text[start:pe.Offset], text[pe.Offset:markEnd], text[markEnd:end]
	// Keep the marker in view on a long line.
	room := width - 4 - lipgloss.Width(marker)
	if lipgloss.Width(before) > room/2 {
		r := []rune(before)
		before = "…" + string(r[max(len(r)-room/2, 0):])
	}
	line := s.Value.Render(before) + s.Error.Reverse(true).Render(marker) + s.Value.Render(after)
	return s.Error.Render("✗ ") + textutil.Truncate(line, width-2)
}
