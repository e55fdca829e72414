package mcp

import (
	"fmt"
	"path/filepath"
	"strings"

	"clapper/api"
)

// An agent may be led (by a prompt injected into what it reads) to send
// any file the user can read: a private photo would be uploaded to the
// service. So local files are read only from folders the user names
// (clapper mcp --media-root DIR, as often as needed) and the folders
// results are saved in. A path is judged by its name before anything
// looks at it, so a refusal tells nothing of what lies outside: not
// whether a file is there, nor what it is.

// mediaRoots are the folders given and the download folders, absolute,
// cleaned and with links resolved (where they exist).
func mediaRoots(given, downloads []string) []string {
	var out []string
	for _, d := range append(append([]string(nil), given...), downloads...) {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		out = append(out, filepath.Clean(abs))
	}
	return out
}

// within reports whether path lies in root (or is root).
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// allowFile accepts an absolute path an agent may have read: in a media
// root by its name, and still in one where its links lead.
func (s *Server) allowFile(path string) error {
	path = filepath.Clean(path)
	inside := false
	for _, r := range s.roots {
		if within(path, r) {
			inside = true
			break
		}
	}
	if !inside {
		return fmt.Errorf("%s is outside the folders an agent may read files from (%s); the user can add one with clapper mcp --media-root DIR",
			api.CleanLine(path), api.CleanLine(strings.Join(s.roots, ", ")))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil // not there: the reader says so, and inside a root that is no secret
	}
	for _, r := range s.roots {
		if within(real, r) {
			return nil
		}
	}
	return fmt.Errorf("%s is a link that leads outside the folders an agent may read files from", api.CleanLine(path))
}
