package ui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/track"
)

// maxPreviewBytes bounds a fetched cover or image: a preview is never worth
// more.
const maxPreviewBytes = 32 << 20

// loadPreview decodes and scales the task's picture in the background: a
// saved image result, else the image or the video's cover from its URL
// (kept in the data directory's preview cache, as URLs expire).
func (d *detailModel) loadPreview() tea.Cmd {
	t := d.task
	if t == nil || len(t.Creations) == 0 {
		return nil
	}
	media := track.MediaOf(t.Operation)
	if media == "audio" {
		d.previewNote = "An audio result has no picture: o plays the saved file."
		return nil
	}
	d.previewLoading = true
	localID, dataDir := d.localID, d.env.studio.Config.DataDir
	saved := d.savedFile()
	c := t.Creations[0]
	src := c.CoverURL
	if media == "image" {
		src = c.URL
	}
	taskID := t.TaskID
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
			p, err := fetchPreview(dataDir, taskID, src)
			if err != nil {
				return previewLoadedMsg{localID: localID, note: "No preview: " + api.CleanLine(err.Error())}
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

var previewName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// fetchPreview saves a picture URL once into <data>/previews.
func fetchPreview(dataDir, taskID, url string) (string, error) {
	dir := filepath.Join(dataDir, "previews")
	path := filepath.Join(dir, previewName.ReplaceAllString(taskID, "")+".img")
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("the picture's URL is not valid")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("could not fetch the picture from %s", req.URL.Host)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the picture's URL answered %s (expired? r re-reads the task)", resp.Status)
	}
	tmp, err := os.CreateTemp(dir, ".preview-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, maxPreviewBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if n > maxPreviewBytes {
		return "", fmt.Errorf("the picture is over %d MB", maxPreviewBytes>>20)
	}
	return path, os.Rename(tmp.Name(), path)
}

// openWithOS hands a file or folder to the desktop's opener.
func openWithOS(path string) tea.Cmd {
	return func() tea.Msg {
		var cmd *exec.Cmd
		switch runtime.GOOS {
		case "darwin":
			cmd = exec.Command("open", path)
		case "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", path)
		default:
			cmd = exec.Command("xdg-open", path)
		}
		if err := cmd.Start(); err != nil {
			return statusMsg{text: fmt.Sprintf("could not open %s: %v (the file is there to open by hand)", api.CleanLine(path), err), bad: true}
		}
		go cmd.Wait()
		return statusMsg{text: "opened " + api.CleanLine(path)}
	}
}
