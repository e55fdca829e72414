package track

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
)

// File is one result fetched outside a task's downloads: a multi-scene
// version's video, a preview picture. It is saved by the same transfer as a
// task's results (resumed, abandoned when idle, under the size cap and the
// extension policy of its kind, without credentials); claiming it once is
// the caller's (history's version downloads, a preview cache).
type File struct {
	// Media is the kind the policy applies: "video", "image" or "audio".
	Media string
	// Dir is the folder and Base the name without its extension, which the
	// policy chooses when the file is whole.
	Dir, Base string
	// URL returns the URL to fetch; fresh asks for a newly signed one after
	// the last one lapsed (a re-read of the job).
	URL func(ctx context.Context, fresh bool) (string, error)
	// Limit caps the size below the kind's cap (0: the kind's cap).
	Limit int64
	// Replace keeps exactly Base.ext, replacing a file of that name (a
	// cache, fetched whole each time); otherwise an existing file is never
	// overwritten, and a partial one is resumed.
	Replace bool
}

// Save fetches f and returns where it was saved and its size. A transfer
// that breaks off is resumed where it stopped; a lapsed URL is asked for
// afresh once. A stopped Save (ctx ended) keeps its partial file, so the
// next Save of the same file resumes it; a failed one removes it.
func (d *Downloader) Save(ctx context.Context, f File) (string, int64, error) {
	url, err := f.URL(ctx, false)
	if err != nil {
		return "", 0, err
	}
	t := transfer{dir: f.Dir, part: "." + f.Base + ".part", base: f.Base, media: f.Media, limit: f.Limit, replace: f.Replace}
	if f.Replace {
		// A cache entry is not worth resuming, and two processes filling it
		// at once must not write into one partial file.
		t.part = fmt.Sprintf(".%s.%d-%s.part", f.Base, os.Getpid(), rand.Text()[:8])
	}
	var (
		path string
		n    int64
	)
	err = retryTransfer(ctx, func() (int64, error) {
		t.url = url
		var terr error
		path, n, terr = d.transfer(ctx, t)
		return n, terr
	}, func(error) error {
		var uerr error
		url, uerr = f.URL(ctx, true)
		return uerr
	})
	if err != nil && ctx.Err() == nil {
		if root, rerr := os.OpenRoot(f.Dir); rerr == nil {
			_ = root.Remove(t.part)
			root.Close()
		}
	}
	if err != nil {
		return "", n, err
	}
	return path, n, nil
}

// SavedPicture finds the picture a Replace save of base left in dir (a
// preview cache), whatever extension the policy gave it.
func SavedPicture(dir, base string) (string, bool) {
	for _, ext := range []string{"png", "jpg", "webp", "gif", "jpeg", "bin"} {
		p := filepath.Join(dir, base+"."+ext)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			return p, true
		}
	}
	return "", false
}
