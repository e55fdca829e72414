package track

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// MediaOf tells what an operation produces: "video", "image" or "audio"
// (the catalog's ResultMedia).
func MediaOf(op api.Operation) string { return catalog.ResultMedia(op).String() }

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

// VersionFileName is the name of a multi-scene job's version:
// <date>_general_one_click_<job-id>_<part>.<ext>, where part names the
// version as people do (scene2_v3, cut_v1).
func VersionFileName(created time.Time, jobID, part string) string {
	id := unsafeName.ReplaceAllString(jobID, "")
	if id == "" {
		id = "job"
	}
	return fmt.Sprintf("%s_%s_%s_%s.%s", created.UTC().Format("2006-01-02"), unsafeName.ReplaceAllString(string(api.OpGeneralOneClick), ""),
		id[:min(len(id), 64)], unsafeName.ReplaceAllString(part, ""), allowedExt[MediaOf(api.OpGeneralOneClick)][0])
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

// extension is the URL's extension when the policy allows it for the
// operation's kind of media, else the kind's usual one; the downloader
// settles the real one when the file is whole (chooseExt).
func extension(rawURL string, op api.Operation) string {
	if ext := urlExt(rawURL); allowed(MediaOf(op), ext) {
		return ext
	}
	return allowedExt[MediaOf(op)][0]
}
