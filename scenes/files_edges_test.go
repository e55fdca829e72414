package scenes

import (
	"clapper/record"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// faultyFiles answers the service's paths as the sandbox does and every
// file with fault.
func faultyFiles(r *rig, fault func(w http.ResponseWriter)) {
	next := r.rec.next
	r.rec.next = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/ent/") {
			next.ServeHTTP(w, req)
			return
		}
		fault(w)
	})
}

// A version whose file cannot be fetched (the URL answers 404, or the body
// is cut short) is not reported saved: Download fails, no file is left,
// and the download row says failed, so that the next try fetches again.
func TestDownloadThatFailsIsNotSaved(t *testing.T) {
	for name, fault := range map[string]func(w http.ResponseWriter){
		"not found": func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
		"cut short": func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("only the first bytes"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t)
			jobID := r.create()
			scene := r.job(jobID).Scenes[0].Jobs[0].ID
			faultyFiles(r, fault)
			dir := filepath.Join(r.dir, "mine")
			path, err := r.svc.Download(r.t.Context(), jobID, scene, dir)
			if err == nil {
				t.Fatalf("a failed fetch reported saved at %q", path)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("a failed fetch left %v", files)
			}
			_, v, _ := Find(r.job(jobID), scene)
			if v.Download == nil || v.Download.Status != record.DownloadFailed {
				t.Errorf("download row after a failed fetch: %+v", v.Download)
			}
		})
	}
}

// A file already there under the version's name is never overwritten: the
// video is saved as "name (2)".
func TestDownloadNeverOverwrites(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	scene := r.job(jobID).Scenes[0].Jobs[0].ID
	dir := filepath.Join(r.dir, "mine")
	first, err := r.svc.Download(r.t.Context(), jobID, scene, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's file takes the name; the row forgets ours.
	if err := os.WriteFile(first, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Store.LostVersionDownload(r.t.Context(), scene, first); err != nil {
		t.Fatal(err)
	}
	again, err := r.svc.Download(r.t.Context(), jobID, scene, dir)
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Ext(first)
	if want := strings.TrimSuffix(first, ext) + " (2)" + ext; again != want {
		t.Errorf("saved at %s, want %s", again, want)
	}
	if b, _ := os.ReadFile(first); string(b) != "not ours" {
		t.Error("the other file was overwritten")
	}
}

// The composed video's fresh URL is the job's signed URL.
func TestFreshURLOfTheComposedVideo(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	url, j, err := r.svc.FreshURL(r.t.Context(), jobID, "")
	if err != nil || url == "" || url != j.SignedURL {
		t.Errorf("FreshURL of the composition: %q %v (job's signed URL %q)", url, err, j.SignedURL)
	}
	// "signed_url: final video URL, valid under 3 minutes": history holds it
	// for at most three minutes from the read, and so does each version's.
	if want := r.clock.Now().Add(3 * time.Minute); j.SignedURLExpiresAt.After(want) || j.SignedURLExpiresAt.IsZero() {
		t.Errorf("the composed video's URL is held until %v, past %v", j.SignedURLExpiresAt, want)
	}
	for _, v := range j.Scenes[0].Jobs {
		if want := r.clock.Now().Add(3 * time.Minute); v.SignedURLExpiresAt.After(want) || v.SignedURLExpiresAt.IsZero() {
			t.Errorf("version %s's URL is held until %v, past %v", v.ID, v.SignedURLExpiresAt, want)
		}
	}
	if _, _, err := r.svc.FreshURL(r.t.Context(), jobID, "no-such-version"); !errors.As(err, new(*InputError)) {
		t.Errorf("FreshURL of an unknown version: %v", err)
	}
}

// While a scene's newest version is being made, the chosen one is the
// newest successful version before it; an edit of that scene is refused,
// naming the scene by its number.
func TestChosenSkipsAVersionInTheMaking(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	first := r.job(jobID).Scenes[1].Jobs[0].ID
	r.edit(jobID, first, "a storm rolls in")
	j := r.job(jobID)
	if v, byUser, ok := Chosen(j, j.Scenes[1]); !ok || byUser || v.ID != first {
		t.Errorf("chosen while v2 is made: %s %v %v, want %s", v.ID, byUser, ok, first)
	}
	_, err := r.svc.Edit(r.t.Context(), jobID, first, "too soon")
	if err == nil || !strings.Contains(err.Error(), "scene 2 is still being made") {
		t.Errorf("an edit of a scene in the making: %v", err)
	}
}
