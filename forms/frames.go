package forms

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api/catalog"
)

// framesEditor edits multiframe's key frames (image_settings): one line per
// frame, the focused frame opened into its key image, prompt and duration,
// an input for the focused part, and the count and total length below.
// Like the subjects editor it never mixes modes: typing always edits the
// part under the cursor, and its commands are keys no text needs.
type framesEditor struct {
	ctx    *Context
	field  catalog.Field
	frames []*keyFrame
	cur    int // the focused frame; len(frames) is the "add key frame" row
	part   framePart
	// One input per kind of part, loaded with the focused part's text: the
	// key image's completes paths and steps through results.
	image, prompt, duration *lineEditor
	// imageOf is the frame the key image input was last loaded with: a
	// folder listing that completes a path after the cursor moved on
	// belongs to it.
	imageOf *keyFrame
	focused bool
	undo    []frameUndo
	notice  string
	warn    bool
	// problems are the last check's messages about each frame, by index.
	problems map[int][]string
	// cost is the last check's price: it follows the frames' durations.
	cost string
}

// keyFrame is one frame as typed. What the editor cannot show as a part is
// kept as given and sent back unchanged, flagged, never dropped.
type keyFrame struct {
	image, prompt, duration string
	extra                   map[string]any // keys that are no frame part, or parts of the wrong type
	raw                     any            // an item that is no object at all
	isRaw                   bool
}

type framePart int

const (
	frameImage framePart = iota
	framePrompt
	frameDuration
	frameParts
)

// frameUndo brings back one removed frame where it was.
type frameUndo struct {
	f  *keyFrame
	at int
}

type frameKeyMap struct {
	Up, Down, PrevFrame, NextFrame, Enter, Add, Remove, Undo, Earlier, Later, Drop key.Binding
}

var frameKeys = frameKeyMap{
	Up:        key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "part")),
	Down:      key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next part")),
	PrevFrame: key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "frame")),
	NextFrame: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "next frame")),
	Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next part")),
	Add:       key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add key frame")),
	Remove:    key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "remove frame")),
	Undo:      key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo remove")),
	Earlier:   key.NewBinding(key.WithKeys("alt+up", "ctrl+up"), key.WithHelp("alt+↑/↓", "move frame")),
	Later:     key.NewBinding(key.WithKeys("alt+down", "ctrl+down"), key.WithHelp("alt+↓", "move frame later")),
	Drop:      key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("backspace", "remove this")),
}

func newFramesEditor(ctx *Context, f catalog.Field) *framesEditor {
	if ctx == nil {
		ctx = &Context{}
	}
	e := &framesEditor{ctx: ctx}
	e.image = newLineEditor(ctx, catalog.Field{Name: "key_image", Kind: catalog.KindMedia, Media: catalog.MediaImage})
	e.prompt = newLineEditor(ctx, catalog.Field{Name: "prompt", Kind: catalog.KindText})
	e.duration = newLineEditor(ctx, catalog.Field{Name: "duration", Kind: catalog.KindNumber})
	e.SetField(f)
	return e
}

// SetField takes the model's limits; the frames stay as they are, shown
// against the new limits.
func (e *framesEditor) SetField(f catalog.Field) {
	e.field = f
	e.image.input.Placeholder("file path (tab completes) or URL · ctrl+o picks a file")
	e.prompt.input.Placeholder("optional: what happens on the way to this frame")
	e.duration.input.Placeholder(fmt.Sprintf("%d-%d s to reach this frame; none: %d s", catalog.KeyFrameMinSeconds, catalog.KeyFrameMaxSeconds, catalog.KeyFrameDefault))
	e.clamp()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// input is the line editor of the focused part (nil off a frame).
func (e *framesEditor) input() *lineEditor {
	if !e.editable() {
		return nil
	}
	return [...]*lineEditor{e.image, e.prompt, e.duration}[e.part]
}

func (e *framesEditor) Focus() tea.Cmd {
	e.focused = true
	return e.bind()
}

func (e *framesEditor) Blur() {
	e.focused = false
	for _, in := range []*lineEditor{e.image, e.prompt, e.duration} {
		in.Blur()
	}
}

// current is the focused frame, nil on the "add key frame" row.
func (e *framesEditor) current() *keyFrame {
	if e.cur >= len(e.frames) {
		return nil
	}
	return e.frames[e.cur]
}

// editable reports whether the focused part takes typing. A data URI is
// shown by its size, not typed over.
func (e *framesEditor) editable() bool {
	fr := e.current()
	if fr == nil || fr.isRaw {
		return false
	}
	return !(e.part == frameImage && heldMedia(fr.image))
}

// bind loads the focused part into its input and focuses it.
func (e *framesEditor) bind() tea.Cmd {
	for _, in := range []*lineEditor{e.image, e.prompt, e.duration} {
		in.Blur()
	}
	in := e.input()
	if in == nil {
		return nil
	}
	in.set(e.current().text(e.part))
	if in == e.image {
		e.imageOf = e.current()
	}
	if !e.focused {
		return nil
	}
	return in.Focus()
}

func (e *framesEditor) clamp() {
	e.cur = min(max(e.cur, 0), len(e.frames))
	if fr := e.current(); fr == nil || fr.isRaw {
		e.part = frameImage
	}
	e.part = min(max(e.part, frameImage), frameDuration)
}

func (e *framesEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	onAdd := e.cur == len(e.frames)
	if _, paste := msg.(tea.PasteMsg); paste && onAdd {
		return e.startFrame(msg)
	}
	if l, ok := msg.(PathsListedMsg); ok && l.For(e.image.paths) {
		cmd, changed := e.image.Update(msg)
		if changed = changed && slices.Contains(e.frames, e.imageOf); changed {
			e.imageOf.setText(frameImage, e.image.val)
		}
		return cmd, changed
	}
	if !isKey {
		return e.typeIn(msg)
	}
	e.notice, e.warn = "", false
	switch {
	case key.Matches(k, frameKeys.Earlier):
		return e.shift(-1)
	case key.Matches(k, frameKeys.Later):
		return e.shift(1)
	case key.Matches(k, frameKeys.Up):
		return e.move(-1), false
	case key.Matches(k, frameKeys.Down):
		return e.move(1), false
	case key.Matches(k, frameKeys.PrevFrame):
		return e.jump(e.cur - 1), false
	case key.Matches(k, frameKeys.NextFrame):
		return e.jump(e.cur + 1), false
	case key.Matches(k, frameKeys.Add), onAdd && key.Matches(k, frameKeys.Enter):
		return e.add()
	case key.Matches(k, frameKeys.Enter):
		return e.move(1), false
	case key.Matches(k, frameKeys.Remove):
		return e.remove()
	case key.Matches(k, frameKeys.Undo):
		return e.restore()
	case !onAdd && !e.editable() && key.Matches(k, frameKeys.Drop):
		return e.drop()
	case onAdd && k.Text != "":
		return e.startFrame(msg)
	}
	if !e.editable() && k.Text != "" {
		e.notice, e.warn = "this is kept as given: backspace removes it", true
		if fr := e.current(); fr != nil && !fr.isRaw {
			e.notice = "a data URI is not typed over: backspace removes it, then type a path or URL"
		}
		return nil, false
	}
	return e.typeIn(msg)
}

// startFrame adds a frame for what is typed or pasted on the "add" row:
// its key image.
func (e *framesEditor) startFrame(msg tea.Msg) (tea.Cmd, bool) {
	cmd, added := e.add()
	if !added {
		return cmd, false
	}
	tcmd, _ := e.typeIn(msg)
	return tea.Batch(cmd, tcmd), true
}

// onImage reports whether the cursor is on a key image that takes typing.
func (e *framesEditor) onImage() bool { return e.editable() && e.part == frameImage }

// typeIn hands a key, a paste or a listing to the focused input and stores
// what changed.
func (e *framesEditor) typeIn(msg tea.Msg) (tea.Cmd, bool) {
	in := e.input()
	if in == nil {
		return nil, false
	}
	cmd, changed := in.Update(msg)
	if changed {
		e.current().setText(e.part, in.val)
	}
	return cmd, changed
}

// canMove reports whether up or down stays inside the editor; at its edges
// the keys are the form's, to reach the field above or below.
func (e *framesEditor) canMove(by int) bool {
	if by < 0 {
		return e.cur > 0 || e.part > frameImage
	}
	return e.cur < len(e.frames)
}

func (e *framesEditor) parts() framePart {
	if fr := e.current(); fr == nil || fr.isRaw {
		return 1
	}
	return frameParts
}

func (e *framesEditor) move(by int) tea.Cmd {
	if !e.canMove(by) {
		return nil
	}
	if p := e.part + framePart(by); p >= 0 && p < e.parts() {
		e.part = p
		return e.bind()
	}
	e.cur += by
	e.part = frameImage
	if by < 0 {
		e.part = e.parts() - 1
	}
	return e.bind()
}

func (e *framesEditor) jump(to int) tea.Cmd {
	if to < 0 || to > len(e.frames) || to == e.cur {
		return nil
	}
	e.cur, e.part = to, frameImage
	return e.bind()
}

// maxFrames is the field's bound, 0 for none shown.
func (e *framesEditor) maxFrames() int { return e.field.MaxItems }

// add puts a new frame after the focused one (at the end from the "add"
// row) and opens its key image.
func (e *framesEditor) add() (tea.Cmd, bool) {
	if m := e.maxFrames(); m > 0 && len(e.frames) >= m {
		e.notice, e.warn = fmt.Sprintf("multiframe takes at most %d key frames", m), true
		return nil, false
	}
	at := min(e.cur+1, len(e.frames))
	e.frames = slices.Insert(e.frames, at, &keyFrame{})
	e.cur, e.part = at, frameImage
	return e.bind(), true
}

// remove takes the focused frame out at once and says how to bring it
// back: asking first would cost a key on every removal.
func (e *framesEditor) remove() (tea.Cmd, bool) {
	if e.cur >= len(e.frames) {
		return nil, false
	}
	e.undo = append(e.undo, frameUndo{f: e.frames[e.cur], at: e.cur})
	e.frames = slices.Delete(e.frames, e.cur, e.cur+1)
	e.notice = fmt.Sprintf("removed frame %d · ctrl+z brings it back", e.undo[len(e.undo)-1].at+1)
	e.clamp()
	return e.bind(), true
}

// drop removes a frame kept as given, or a key image given as a data URI.
func (e *framesEditor) drop() (tea.Cmd, bool) {
	fr := e.current()
	if fr.isRaw {
		return e.remove()
	}
	fr.setText(frameImage, "")
	return e.bind(), true
}

// restore undoes the last removal, where it still fits.
func (e *framesEditor) restore() (tea.Cmd, bool) {
	if len(e.undo) == 0 {
		return nil, false
	}
	if m := e.maxFrames(); m > 0 && len(e.frames) >= m {
		e.notice, e.warn = fmt.Sprintf("multiframe takes at most %d key frames: remove one first", m), true
		return nil, false
	}
	u := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	at := min(u.at, len(e.frames))
	e.frames = slices.Insert(e.frames, at, u.f)
	e.cur, e.part = at, frameImage
	e.notice = fmt.Sprintf("brought back frame %d", at+1)
	return e.bind(), true
}

// shift moves the focused frame one place earlier or later: frames play in
// their order.
func (e *framesEditor) shift(by int) (tea.Cmd, bool) {
	to := e.cur + by
	if e.cur >= len(e.frames) || to < 0 || to >= len(e.frames) {
		if len(e.frames) > 1 && e.cur < len(e.frames) {
			e.notice = fmt.Sprintf("frame %d is already the %s", e.cur+1, map[bool]string{true: "first", false: "last"}[by < 0])
		}
		return nil, false
	}
	e.frames[e.cur], e.frames[to] = e.frames[to], e.frames[e.cur]
	e.notice = fmt.Sprintf("frame %d is now frame %d", e.cur+1, to+1)
	e.cur = to
	return e.bind(), true
}

// OwnsKey claims up and down while they move inside the list, enter, tab
// while a path completes, and the frame moves.
func (e *framesEditor) OwnsKey(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, frameKeys.Up):
		return e.canMove(-1)
	case key.Matches(k, frameKeys.Down):
		return e.canMove(1)
	case key.Matches(k, frameKeys.Enter):
		return true
	case k.String() == "tab":
		return e.onImage() && e.image.OwnsKey(k)
	}
	return false
}

// Counter is "3 of 2-9", as the form's other lists count.
func (e *framesEditor) Counter() string {
	c := fmt.Sprint(len(e.frames))
	switch f := e.field; {
	case f.MaxItems > 0:
		c += fmt.Sprintf(" of %d-%d", f.MinItems, f.MaxItems)
	case f.MinItems > 0:
		c += fmt.Sprintf(" of %d+", f.MinItems)
	}
	return c
}

// total is the frames' durations added up, and how many have none (the
// service takes those as catalog.KeyFrameDefault).
func (e *framesEditor) total() (float64, int) {
	sum, unset := 0.0, 0
	for _, fr := range e.frames {
		if fr.isRaw {
			continue
		}
		d, err := strconv.ParseFloat(strings.TrimSpace(fr.duration), 64)
		if err != nil {
			unset++
			d = catalog.KeyFrameDefault
		}
		sum += d
	}
	return sum, unset
}

// Keys lists only what works on the focused row.
func (e *framesEditor) Keys() []key.Binding {
	ks := []key.Binding{frameKeys.Up}
	onAdd := e.cur == len(e.frames)
	if m := e.maxFrames(); m == 0 || len(e.frames) < m {
		ks = append(ks, frameKeys.Add)
	}
	if !onAdd {
		ks = append(ks, frameKeys.Remove)
	}
	if e.onImage() {
		ks = append(ks, e.image.Keys()...)
	}
	if !onAdd && len(e.frames) > 1 {
		ks = append(ks, frameKeys.Earlier)
	}
	if len(e.frames) > 1 {
		ks = append(ks, frameKeys.PrevFrame)
	}
	if len(e.undo) > 0 {
		ks = append(ks, frameKeys.Undo)
	}
	if !onAdd && !e.editable() {
		ks = append(ks, frameKeys.Drop)
	}
	return ks
}

// pickField is the field a file picked for the focused part must suit;
// ok is false off a key image.
func (e *framesEditor) pickField() (catalog.Field, bool) {
	return e.image.f, e.onImage()
}

// takePicked puts a picked file into the focused key image.
func (e *framesEditor) takePicked(path string) {
	if fr := e.current(); fr != nil && e.onImage() {
		fr.setText(frameImage, path)
		e.bind()
	}
}

// takeCheck keeps what the last check says of the frames: its messages
// about the field, sorted by the frame they name (image_settings[1].duration
// names frame 2), and the price.
func (e *framesEditor) takeCheck(msgs []string, cost string) {
	e.cost = cost
	e.problems = map[int][]string{}
	prefix := e.field.Name + "["
	for _, m := range msgs {
		if !strings.HasPrefix(m, prefix) {
			continue
		}
		end := strings.IndexByte(m, ']')
		i, err := strconv.Atoi(m[len(prefix):max(end, len(prefix))])
		if end < 0 || err != nil {
			continue
		}
		e.problems[i] = append(e.problems[i], m)
	}
}

// say puts a message about a frame in people's words: image_settings[1].duration
// reads "frame 2 duration".
func (e *framesEditor) say(msg string) string {
	prefix := e.field.Name + "["
	if !strings.HasPrefix(msg, prefix) {
		return msg
	}
	end := strings.IndexByte(msg, ']')
	i, err := strconv.Atoi(msg[len(prefix):max(end, len(prefix))])
	if end < 0 || err != nil {
		return msg
	}
	rest := strings.TrimPrefix(msg[end+1:], ".")
	return "frame " + strconv.Itoa(i+1) + " " + rest
}

// frameLabel names a frame's key image in the summary: a result from
// history by its task, a data URI by its size, a path or URL as typed.
func (e *framesEditor) frameLabel(v string) string {
	if r, ok := e.ctx.result(v); ok {
		return r.Label
	}
	return shortMedia(v)
}
