package forms

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// reviewState is the review before sending: the exact body, the defaults
// the service will apply, the price, and what the catalog thinks.
type reviewState struct {
	offset int
	// confirming asks before sending a request the catalog refuses, or
	// one that would pass a credit cap.
	confirming bool
	// lines is the review drawn for the check it was built from.
	lines []string
	built *Check
	width int
}

// SubmitMsg hands a request to the page to send. Forced means the user
// confirmed sending it although the catalog refuses it.
type SubmitMsg struct {
	Op     api.Operation
	Model  string
	Body   map[string]any
	Forced bool
	// OverCap: the person was told the request passes a credit cap and
	// said to send it anyway.
	OverCap bool
	Broken  []string
	Sources map[string]string
}

// VariationsMsg asks the page to send several versions of the reviewed
// request (v): it asks how many, or which field to vary.
type VariationsMsg struct {
	Op      api.Operation
	Model   string
	Body    map[string]any
	Sources map[string]string
}

var (
	variationsKey = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "variations…"))
	sendKey       = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send"))
	forceKey      = key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "send anyway…"))
	backKey       = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the form"))
	scrollKey     = key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown"), key.WithHelp("↑/↓", "scroll"))
	confirmYes    = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "send it"))
	confirmNo     = key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "don't"))
	reviewFresh   = "checking the latest changes…"
)

func (f *Form) openReview() tea.Cmd {
	if e := f.focused(); e != nil {
		e.Blur()
	}
	f.mode = modeReview
	f.review = reviewState{}
	f.showAll = true
	if f.rev != f.checkedRev && !f.checking {
		return f.checkCmd()
	}
	return nil
}

func (f *Form) reviewKeys() []key.Binding {
	if f.review.confirming {
		return []key.Binding{confirmYes, confirmNo}
	}
	if f.check != nil && !f.check.OK() {
		return []key.Binding{forceKey, scrollKey, backKey}
	}
	return []key.Binding{sendKey, variationsKey, scrollKey, backKey}
}

func (f *Form) updateReview(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	fresh := f.check != nil && f.rev == f.checkedRev
	if f.review.confirming {
		switch k.String() {
		case "y", "Y":
			f.review.confirming = false
			// Asked about the catalog's rules or a credit cap, and said yes.
			return f.submit(!f.check.OK(), f.check.OverCap != "")
		case "n", "N", "esc":
			f.review.confirming = false
		}
		return nil
	}
	switch k.String() {
	case "esc":
		f.mode = modeEdit
		return f.focusCmd()
	case "enter":
		if fresh && f.check.OK() && f.check.OverCap != "" {
			f.review.confirming = true
		} else if fresh && f.check.OK() {
			return f.submit(false, false)
		}
	case "v":
		if fresh && f.check.OK() {
			c := f.check
			msg := VariationsMsg{Op: f.op, Model: f.model, Body: c.Body, Sources: c.Sources}
			return func() tea.Msg { return msg }
		}
	case "ctrl+f":
		if fresh && !f.check.OK() {
			f.review.confirming = true
		}
	case "up", "k":
		f.review.offset = max(f.review.offset-1, 0)
	case "down", "j":
		f.review.offset++
	case "pgup":
		f.review.offset = max(f.review.offset-f.height/2, 0)
	case "pgdown", "space":
		f.review.offset += f.height / 2
	}
	return nil
}

func (f *Form) submit(forced, overCap bool) tea.Cmd {
	c := f.check
	msg := SubmitMsg{Op: f.op, Model: f.model, Body: c.Body, Forced: forced, OverCap: overCap, Broken: c.Broken, Sources: c.Sources}
	return func() tea.Msg { return msg }
}

// Sent returns the form to editing after the page sent its request: the
// values stay for the next variation.
func (f *Form) Sent() {
	f.mode = modeEdit
	f.review = reviewState{}
}

// Delivered is a request the service took: the values stay for the next
// variation, and the focus goes back to the first field so that enter
// cannot send the same request again.
func (f *Form) Delivered() tea.Cmd {
	f.Sent()
	f.showAll = false
	f.focus = 0
	if len(f.rows) > 1 && f.rows[0].name == "model" {
		f.focus = 1
	}
	return f.focusCmd()
}

func (f *Form) reviewView() string {
	s := f.styles
	w := max(f.width, 40)
	fresh := f.check != nil && f.rev == f.checkedRev
	if f.review.built != f.check || f.review.width != w {
		f.review.lines = f.reviewLines(w)
		f.review.built, f.review.width = f.check, w
	}
	model := f.model
	if e, ok := f.editors["model"]; ok {
		if m, _ := e.Value().(string); m != "" {
			model = m // what is sent, a model the catalog does not know included
		}
	}
	head := s.Title.Render(textutil.Truncate("Review · "+string(f.op)+modelSuffix(model), w))
	room := max(f.height-3, 3)
	lines := f.review.lines
	if f.review.confirming {
		lines = f.confirmLines(w)
	}
	f.review.offset = min(f.review.offset, max(len(lines)-room, 0))
	end := min(f.review.offset+room, len(lines))
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, l := range lines[f.review.offset:end] {
		b.WriteString(textutil.Truncate(l, w) + "\n")
	}
	for i := end - f.review.offset; i < room; i++ {
		b.WriteString("\n")
	}
	var foot string
	switch {
	case !fresh:
		foot = s.Dim.Render(reviewFresh)
	case f.review.confirming:
		foot = s.Warning.Render("y sends it as it is · n keeps it here")
	case f.check.OK() && f.check.OverCap != "":
		foot = s.Warning.Render("! past a credit cap") + s.Dim.Render(" · enter asks first · esc back to the form")
	case f.check.OK():
		foot = s.OK.Render("✓ ready") + s.Dim.Render(" · enter sends it · v variations · esc back")
	case f.check.OverCap != "":
		foot = s.Error.Render("✗ the catalog refuses it") + s.Warning.Render(" · ! past a credit cap") + s.Dim.Render(" · esc fix it · ctrl+f send anyway…")
	default:
		foot = s.Error.Render("✗ the catalog refuses it") + s.Dim.Render(" · esc fix it · ctrl+f send anyway…")
	}
	if end < len(lines) {
		foot = textutil.JoinEnds(foot, s.Dim.Render("↓ more"), w)
	}
	b.WriteString("\n" + foot)
	return b.String()
}

func modelSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " · " + m
}

// reviewLines draws the review once per check: the request line, the
// price and spending, the rules it breaks, the exact JSON with data URIs
// shortened, and the defaults.
func (f *Form) reviewLines(w int) []string {
	s := f.styles
	c := f.check
	if c == nil {
		return []string{s.Dim.Render(reviewFresh)}
	}
	var out []string
	out = append(out, s.Key.Render("POST "+f.op.Path())+s.Dim.Render(" · "+f.sizeText()))
	// The price and the spending are wrapped under their label: a live
	// price not known yet says at length which like task it looked for.
	for _, l := range [][2]string{{"Cost  ", c.Cost}, {"Spent ", c.Spent}} {
		if l[1] == "" {
			continue
		}
		for i, line := range strings.Split(textutil.Wrap(l[1], max(w-2-len(l[0]), 10)), "\n") {
			lead := s.Label.Render(l[0])
			if i > 0 {
				lead = strings.Repeat(" ", len(l[0]))
			}
			out = append(out, lead+s.Value.Render(line))
		}
	}
	if c.OverCap != "" {
		out = append(out, wrapLines(s.Warning, "! "+strings.TrimPrefix(c.OverCap, "not sent: "), w)...)
	}
	// What is wrong comes before the body, so even a short terminal
	// shows why the request is refused without scrolling.
	if len(c.Broken) > 0 {
		out = append(out, "", s.Error.Render(fmt.Sprintf("The catalog refuses this request: %s", textutil.Plural(len(c.Broken), "rule")+" broken")))
		for _, m := range c.Broken {
			out = append(out, wrapLines(s.Error, "✗ "+m, w)...)
		}
	}
	out = append(out, "")
	uploads := f.ctx.Uploading != nil && f.ctx.Uploading(c.Size)
	for _, l := range strings.Split(displayJSON(f.op, c, uploads), "\n") {
		out = append(out, s.Value.Render(l))
	}
	if len(c.Defaults) > 0 {
		out = append(out, "", s.Label.Render("Defaults the service applies (not sent)"))
		out = append(out, wrapLines(s.Default, strings.Join(c.Defaults, " · "), w)...)
	}
	if len(c.Warnings) > 0 {
		out = append(out, "", s.Warning.Render("Fields clapper does not know (sent as written)"))
		for _, m := range c.Warnings {
			out = append(out, wrapLines(s.Warning, "! "+m, w)...)
		}
	}
	return out
}

func (f *Form) confirmLines(w int) []string {
	s := f.styles
	if f.check.OK() {
		out := []string{s.Warning.Render("Send past a credit cap?"), ""}
		why := strings.TrimPrefix(f.check.OverCap, "not sent: ")
		out = append(out, wrapLines(s.Value, strings.ToUpper(why[:1])+why[1:]+".", w)...)
		return append(out, "", s.Key.Render("y")+s.Dim.Render(" send it anyway   ")+s.Key.Render("n")+s.Dim.Render(" keep editing"))
	}
	title := "Send a request the catalog refuses?"
	if f.check.OverCap != "" {
		title = "Send a request the catalog refuses, past a credit cap?"
	}
	out := []string{s.Warning.Render(title), ""}
	out = append(out, wrapLines(s.Value, "The service may be newer than clapper's tables, so it may accept what they refuse. Its answer is final and is shown. This request breaks:", w)...)
	for _, m := range f.check.Broken {
		out = append(out, wrapLines(s.Error, "✗ "+m, w)...)
	}
	if f.check.OverCap != "" {
		// y sends it past the cap too (submit's overCap): it must be said
		// here, not only on the review behind this question.
		out = append(out, "")
		out = append(out, wrapLines(s.Warning, "! It also passes a credit cap: "+strings.TrimPrefix(f.check.OverCap, "not sent: ")+".", w)...)
	}
	return append(out, "", s.Key.Render("y")+s.Dim.Render(" send it anyway   ")+s.Key.Render("n")+s.Dim.Render(" keep editing"))
}

// displayJSON is the body as sent, indented, with each data URI shown as
// its type, size and the file it came from; with uploads, each image data
// URI as the upload that takes its place in what is sent.
func displayJSON(op api.Operation, c *Check, uploads bool) string {
	body := c.Body
	if uploads {
		body, _ = catalog.MapImages(op, body, func(_ catalog.Field, v string) (string, bool) {
			if !catalog.IsDataURI(v) {
				return "", false
			}
			return uploadText(v), true
		})
	}
	short := shortenURIs(body)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(short); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// sizeText is the request's size against the service's limit, as it is
// sent: with uploads, the body that holds their URIs, after the images
// uploaded before it.
func (f *Form) sizeText() string {
	c := f.check
	if c.Uploaded == 0 {
		return fmt.Sprintf("%s of 20 MB", api.ByteSize(int64(c.Size)))
	}
	return fmt.Sprintf("%s of 20 MB, after %s of images uploaded", api.ByteSize(int64(c.SentSize)), api.ByteSize(int64(c.Uploaded)))
}

// uploadText is how the review shows an image sent through the upload
// flow: the URI the service answers, and what it is made of.
func uploadText(dataURI string) string {
	meta, data, _ := strings.Cut(dataURI, ",")
	kind := strings.TrimSuffix(strings.TrimPrefix(meta, "data:"), ";base64")
	return fmt.Sprintf("ssupload:?id=… (uploaded before sending: %s, %s)", textutil.Truncate(kind, 30), api.ByteSize(int64(len(data)*3/4)))
}

func shortenURIs(v any) any {
	return mapStrings(v, func(s string) any {
		if catalog.IsDataURI(s) {
			return shortMedia(s)
		}
		return s
	})
}

// mapStrings rebuilds a decoded JSON value with every string replaced by fn's.
func mapStrings(v any, fn func(string) any) any {
	switch x := v.(type) {
	case string:
		return fn(x)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = mapStrings(it, fn)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = mapStrings(it, fn)
		}
		return out
	}
	return v
}

func wrapLines(st lipgloss.Style, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(textutil.Wrap(text, max(w-2, 10)), "\n") {
		out = append(out, st.Render(l))
	}
	return out
}
