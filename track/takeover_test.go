package track

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// pausingFile serves payload, resuming at a Range. The first request gets
// half of what it asked for at once and the rest only once release is
// closed (its downloader is stopped meanwhile, as by SIGSTOP); later ones
// are served at once.
type pausingFile struct {
	payload []byte
	halfway chan struct{} // closed once the first request's half is sent
	release chan struct{}
	first   atomic.Bool
}

func (p *pausingFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	from := 0
	if rg := r.Header.Get("Range"); rg != "" {
		from, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(p.payload)-1, len(p.payload)))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(p.payload)-from))
	if from > 0 {
		w.WriteHeader(http.StatusPartialContent)
	}
	if !p.first.CompareAndSwap(false, true) {
		w.Write(p.payload[from:])
		return
	}
	half := from + (len(p.payload)-from)/2
	w.Write(p.payload[from:half])
	w.(http.Flusher).Flush()
	close(p.halfway)
	<-p.release
	w.Write(p.payload[half:])
}

// Trust round two: a downloader stopped past its lease while resuming,
// taken over, then woken, ends with one correct file every time: the one
// who took it over starts from a copy of the stopped one's bytes and writes
// its own partial file, the woken one writes on into its own and cannot
// commit, and the file is done only at the length the server gave. Twenty
// times. (With one partial file shared, the woken one appended its bytes
// to the saved file.)
func TestStoppedDownloaderTakenOverLeavesOneCorrectFile(t *testing.T) {
	for run := range 20 {
		t.Run(fmt.Sprint(run), func(t *testing.T) {
			payload := bytes.Repeat([]byte(fmt.Sprintf("run %02d ", run)), 40_000)
			file := &pausingFile{payload: payload, halfway: make(chan struct{}), release: make(chan struct{})}
			fileSrv := httptest.NewServer(file)
			defer fileSrv.Close()
			svc := newService()
			c, _, clk := setup(t, svc)
			storeA, storeB := twoStores(t, clk)
			res := finishedTask(t, svc, c, storeA, clk, fileSrv.URL+"/r.mp4")
			dir := t.TempDir()
			// A long lease on the fake clock: A's renewal ticker (a third of
			// it, in real time) never runs, as in a stopped process.
			const lease = time.Hour
			a := &Downloader{Store: storeA, Client: c, Clock: clk, Lease: lease, IdleTimeout: time.Hour, DirFor: func(api.Operation) string { return dir }}
			b := &Downloader{Store: storeB, Client: c, Clock: clk, Lease: lease, DirFor: func(api.Operation) string { return dir }}
			ctx := context.Background()
			// A quarter was saved by an earlier run that crashed (the one
			// partial-file name every downloader used before): A resumes it.
			name := FileName(clk.Now(), api.OpImg2Video, res.ID, 0, res.Creations[0].URL)
			if err := os.WriteFile(filepath.Join(dir, "."+name+".part"), payload[:len(payload)/4], 0o644); err != nil {
				t.Fatal(err)
			}
			if err := a.QueueResults(ctx, res.ID, api.OpImg2Video, clk.Now(), res); err != nil {
				t.Fatal(err)
			}
			aDone := make(chan struct{})
			go func() { defer close(aDone); a.RunPending(ctx) }()
			select {
			case <-file.halfway:
			case <-time.After(30 * time.Second):
				t.Fatal("A never started")
			}
			time.Sleep(20 * time.Millisecond) // A writes the half it has
			clk.Advance(lease + time.Second)  // A's lease lapses while it is stopped
			dls, err := b.Settle(ctx, res.ID)
			if err != nil || len(dls) != 1 || dls[0].Status != record.DownloadDone {
				t.Fatalf("B's takeover: %+v %v", dls, err)
			}
			close(file.release) // A wakes and writes on
			<-aDone
			got, err := os.ReadFile(dls[0].Path)
			if err != nil || !bytes.Equal(got, payload) {
				t.Fatalf("the saved file is %d bytes (want %d), equal: %v (%v)", len(got), len(payload), bytes.Equal(got, payload), err)
			}
			final, _ := storeA.Downloads(ctx, res.ID)
			if final[0].Status != record.DownloadDone || final[0].Bytes != int64(len(payload)) || final[0].Path != dls[0].Path {
				t.Errorf("history says %+v", final[0])
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the folder holds %v; want the one file", names)
			}
		})
	}
}
