package scenes

import (
	"clapper/record"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved version whose file was deleted is saved again: the download row
// lets go of the lost file instead of answering its old path for ever.
func TestDownloadAgainAfterTheFileWasDeleted(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	jobID := r.create()
	scene := r.job(jobID).Scenes[0].Jobs[0].ID
	dir := filepath.Join(r.dir, "mine")

	first, err := r.svc.Download(ctx, jobID, scene, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Named by its job, scene and version, not by an id of the service's.
	if base := filepath.Base(first); !strings.HasSuffix(base, "_general_one_click_"+jobID+"_scene1_v1.mp4") {
		t.Errorf("saved as %s", base)
	}
	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}

	again, err := r.svc.Download(ctx, jobID, scene, dir)
	if err != nil {
		t.Fatalf("saving again after the file was deleted: %v", err)
	}
	if st, err := os.Stat(again); err != nil || st.Size() == 0 {
		t.Fatalf("Download answered %s, which is not a saved file: %v", again, err)
	}
	_, v, _ := Find(r.job(jobID), scene)
	if d := v.Download; d == nil || d.Status != record.DownloadDone || d.Path != again {
		t.Errorf("the download row after saving again: %+v, want done at %s", d, again)
	}
	// Saved now: a third call answers the same file without fetching.
	if third, err := r.svc.Download(ctx, jobID, scene, dir); err != nil || third != again {
		t.Errorf("third download %s %v, want %s", third, err, again)
	}
}
