package ui

import (
	"errors"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/studio"
)

// loadPreview decodes and scales the task's picture in the background: a
// saved image result, else the image or the video's cover from its URL
// (kept in the data directory's preview cache, as URLs expire).
func (d *detailModel) loadPreview() tea.Cmd {
	t := d.task
	if t == nil || len(t.Creations) == 0 {
		return nil
	}
	media := studio.MediaOf(t.Operation)
	if media == "audio" {
		// What o does, as it will: nothing saved yet, or a kind it refuses.
		switch saved := d.savedFile(); {
		case saved == "":
			d.previewNote = "An audio result has no picture: d saves it, then o plays it."
		case !studio.OpensKind(saved):
			d.previewNote = "An audio result has no picture. " + savedSays(saved)
		default:
			d.previewNote = "An audio result has no picture: o plays the saved file."
		}
		return nil
	}
	d.previewLoading = true
	localID, s, ctx := d.localID, d.env.studio, d.env.ctx
	saved := d.savedFile()
	c := t.Creations[0]
	src := c.CoverURL
	if media == "image" {
		src = c.URL
	}
	task := *t
	cols, rows := previewCols, previewRows
	if !d.sideBySide() {
		cols, rows = narrowPreviewCols, narrowPreviewRows
	}
	kitty := d.env.kitty
	return func() tea.Msg {
		path := ""
		if media == "image" && saved != "" {
			path = saved
		} else if src != "" {
			p, err := s.TaskPreview(ctx, task, media == "image")
			if err != nil {
				note := "No preview: " + api.CleanLine(err.Error())
				if saved != "" {
					note += ". " + savedSays(saved)
				}
				return previewLoadedMsg{localID: localID, note: note}
			}
			path = p
		} else {
			return previewLoadedMsg{localID: localID, note: "No preview: the service gave no cover image for this result."}
		}
		load := previews.Load
		if kitty != nil {
			load = previews.LoadForKitty
		}
		cells, err := load(path, cols, rows)
		if err != nil {
			return previewLoadedMsg{localID: localID, note: "No preview: " + api.CleanLine(err.Error())}
		}
		return previewLoadedMsg{localID: localID, cells: cells}
	}
}

// savedSays tells where a result is saved and what o does with it: a file
// the opener refuses by its kind (saved as .bin: the service sent a type
// clapper does not know) is said to be left unopened, not offered to o.
func savedSays(path string) string {
	p := api.CleanLine(path)
	if studio.OpensKind(path) {
		return "The saved file is " + p + " (o opens it)."
	}
	return "The result is saved at " + p + " but not opened: its kind is unknown."
}

// savedHint follows a saved file's path on the status line: the keys that
// open it, or why none does (as savedSays).
func savedHint(path, keys string) string {
	if studio.OpensKind(path) {
		return " (" + keys + ")"
	}
	return " (not opened: its kind is unknown)"
}

// openExternal hands target (a web address or a saved file) to the
// studio's one opener, which refuses anything else, in a command.
func openExternal(e *env, target string) tea.Cmd {
	return func() tea.Msg { return openedMsg(target, e.studio.OpenExternal(e.ctx, target)) }
}

// openFolderOf opens the folder of a saved file, through the same opener.
func openFolderOf(e *env, file string) tea.Cmd {
	return func() tea.Msg { return openedMsg(filepath.Dir(file), e.studio.OpenFolderOf(e.ctx, file)) }
}

func openedMsg(target string, err error) tea.Msg {
	if errors.Is(err, studio.ErrNotOpened) {
		return statusMsg{text: api.CleanLine(err.Error()), bad: true} // it says why
	}
	if err != nil {
		return statusMsg{text: "could not open " + api.CleanLine(target) + ": " + api.CleanLine(err.Error()), bad: true}
	}
	return statusMsg{text: "opened " + api.CleanLine(target)}
}
