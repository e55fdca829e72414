package track

import (
	"errors"
	"fmt"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"clapper/api"
)

// MediaOf tells what an operation produces: "video", "image" or "audio".
func MediaOf(op api.Operation) string {
	switch op {
	case api.OpReference2Image:
		return "image"
	case api.OpAudioTTS, api.OpAudioClone, api.OpTiming2Audio:
		return "audio"
	}
	return "video"
}

// DefaultDirs puts results under ~/Videos/clapper, ~/Pictures/clapper or
// ~/Music/clapper when those folders exist, else under dataDir/downloads.
func DefaultDirs(dataDir string) func(api.Operation) string {
	home, _ := os.UserHomeDir()
	byMedia := map[string]string{"video": "Videos", "image": "Pictures", "audio": "Music"}
	return func(op api.Operation) string {
		if home != "" {
			if st, err := os.Stat(filepath.Join(home, byMedia[MediaOf(op)])); err == nil && st.IsDir() {
				return filepath.Join(home, byMedia[MediaOf(op)], "clapper")
			}
		}
		return filepath.Join(dataDir, "downloads")
	}
}

// FileName is <date>_<operation>_<task-id>_<n>.<ext>: never a name from the
// server, only its extension when it is a plain one.
func FileName(created time.Time, op api.Operation, taskID string, index int, rawURL string) string {
	id := unsafeName.ReplaceAllString(taskID, "")
	if id == "" {
		id = "task"
	}
	return fmt.Sprintf("%s_%s_%s_%d.%s", created.UTC().Format("2006-01-02"), unsafeName.ReplaceAllString(string(op), ""), id[:min(len(id), 64)], index+1, extension(rawURL, op))
}

func extension(rawURL string, op api.Operation) string {
	u := rawURL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if ext := strings.ToLower(strings.TrimPrefix(path.Ext(u), ".")); plainExt.MatchString(ext) {
		return ext
	}
	return map[string]string{"video": "mp4", "image": "png", "audio": "wav"}[MediaOf(op)]
}

// finalName keeps the queued name unless the server's content type says
// the extension is wrong; an existing file of that name is never overwritten.
func finalName(root *os.Root, name, contentType string) string {
	if ct, _, err := mime.ParseMediaType(contentType); err == nil {
		if e := mediaExt[ct]; e != "" && strings.TrimPrefix(path.Ext(name), ".") != e {
			name = strings.TrimSuffix(name, path.Ext(name)) + "." + e
		}
	}
	base, ext := strings.TrimSuffix(name, path.Ext(name)), path.Ext(name)
	candidate := name
	for i := 2; ; i++ {
		if _, err := root.Stat(candidate); errors.Is(err, os.ErrNotExist) {
			return candidate
		}
		candidate = fmt.Sprintf("%s (%d)%s", base, i, ext)
	}
}
