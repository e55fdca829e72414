package history

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func TestDownloads(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-a", `{}`)
	submitted(t, s, "tk-b", `{}`)
	expA := t0.Add(24 * time.Hour)
	expB := t0.Add(time.Hour) // trending-replicate: expires sooner
	if _, err := s.ApplyResult(ctx, "tk-a", record.Update{State: api.StateSuccess, Creations: record.CreationsFrom(
		[]api.Creation{{ID: "a0", URL: "https://r/a0", CoverURL: "https://r/a0c"}, {ID: "a1", URL: "https://r/a1"}}, expA)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyResult(ctx, "tk-b", record.Update{State: api.StateSuccess, Creations: record.CreationsFrom(
		[]api.Creation{{ID: "b0", URL: "https://r/b0"}}, expB)}); err != nil {
		t.Fatal(err)
	}

	a0, err := s.QueueDownload(ctx, "tk-a", 0, record.KindURL, "/dl/a0.mp4")
	if err != nil {
		t.Fatal(err)
	}
	a0c, err := s.QueueDownload(ctx, "tk-a", 0, record.KindCover, "/dl/a0.jpg")
	if err != nil {
		t.Fatal(err)
	}
	b0, err := s.QueueDownload(ctx, "tk-b", 0, record.KindURL, "/dl/b0.mp4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		taskID string
		index  int
		kind   record.URLKind
		want   error
	}{
		{"no such task", "tk-z", 0, record.KindURL, record.ErrNotFound},
		{"no such creation", "tk-a", 5, record.KindURL, record.ErrNotFound},
		{"creation without that URL", "tk-a", 1, record.KindWatermarked, record.ErrNotFound},
	} {
		if _, err := s.QueueDownload(ctx, c.taskID, c.index, c.kind, "/x"); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := s.QueueDownload(ctx, "tk-a", 0, "thumbnail", "/x"); err == nil {
		t.Error("accepted an unknown URL kind")
	}

	// Pending: the URL that expires first comes first.
	pending, err := s.PendingDownloads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 3 || pending[0].ID != b0 || pending[0].URL != "https://r/b0" || !pending[0].ExpiresAt.Equal(expB) {
		t.Fatalf("pending %+v", pending)
	}

	clk.Advance(time.Minute)
	if err := s.UpdateDownload(ctx, a0, record.DownloadProgress{Status: record.DownloadRunning, Bytes: 512, Total: 2048}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, a0c, record.DownloadProgress{Status: record.DownloadDone, Path: "/dl/a0-final.jpg", Bytes: 90, Total: 90}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, b0, record.DownloadProgress{Status: record.DownloadExpired, Error: "URL expired"}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, 999, record.DownloadProgress{Status: record.DownloadDone}); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("unknown download: %v", err)
	}
	if err := s.UpdateDownload(ctx, a0, record.DownloadProgress{Status: "paused"}); err == nil {
		t.Error("accepted an unknown status")
	}

	list, err := s.Downloads(ctx, "tk-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("downloads %+v", list)
	}
	cover, video := list[0], list[1] // by index, then kind
	if video.ID != a0 || video.Status != record.DownloadRunning || video.Bytes != 512 || video.Total != 2048 ||
		video.Path != "/dl/a0.mp4" || !video.UpdatedAt.Equal(clk.Now()) || !video.CreatedAt.Equal(t0) ||
		video.TaskID != "tk-a" || video.Operation != api.OpText2Video {
		t.Errorf("video %+v", video)
	}
	if cover.Status != record.DownloadDone || cover.Path != "/dl/a0-final.jpg" || cover.URL != "https://r/a0c" {
		t.Errorf("cover %+v", cover)
	}
	pending, _ = s.PendingDownloads(ctx)
	if len(pending) != 1 || pending[0].ID != a0 {
		t.Errorf("pending after progress %+v: running ones must be resumed, done/expired not", pending)
	}

	// Re-queueing: a running download is left alone, an expired one restarts
	// from zero under the same id.
	if id, err := s.QueueDownload(ctx, "tk-a", 0, record.KindURL, "/elsewhere"); err != nil || id != a0 {
		t.Fatalf("re-queue running: %d %v", id, err)
	}
	if id, err := s.QueueDownload(ctx, "tk-b", 0, record.KindURL, "/dl/b0-again.mp4"); err != nil || id != b0 {
		t.Fatalf("re-queue expired: %d %v", id, err)
	}
	list, _ = s.Downloads(ctx, "tk-a")
	if list[1].Path != "/dl/a0.mp4" || list[1].Status != record.DownloadRunning {
		t.Errorf("running download was reset: %+v", list[1])
	}
	list, _ = s.Downloads(ctx, "tk-b")
	if d := list[0]; d.Status != record.DownloadQueued || d.Error != "" || d.Bytes != 0 || d.Path != "/dl/b0-again.mp4" {
		t.Errorf("expired download was not re-queued: %+v", d)
	}

	// A re-read with a re-signed URL is what the downloader sees next.
	if _, err := s.ApplyResult(ctx, "tk-b", record.Update{State: api.StateSuccess, Creations: record.CreationsFrom(
		[]api.Creation{{ID: "b0", URL: "https://r/b0?sig=2"}}, clk.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	list, _ = s.Downloads(ctx, "tk-b")
	if list[0].URL != "https://r/b0?sig=2" || !list[0].ExpiresAt.Equal(clk.Now().Add(time.Hour)) {
		t.Errorf("download does not follow the refreshed URL: %+v", list[0])
	}
}

// queuedDownload is one queued download of a succeeded task.
func queuedDownload(t *testing.T, s *Store, taskID string) int64 {
	t.Helper()
	ctx := context.Background()
	submitted(t, s, taskID, `{}`)
	if _, err := s.ApplyResult(ctx, taskID, record.Update{State: api.StateSuccess, Creations: record.CreationsFrom(
		[]api.Creation{{ID: "c", URL: "https://r/" + taskID}}, t0.Add(24*time.Hour))}); err != nil {
		t.Fatal(err)
	}
	id, err := s.QueueDownload(ctx, taskID, 0, record.KindURL, "/dl/"+taskID+".mp4")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Issue 11.5/11.6: a download carries an owner and a lease deadline; it is
// claimed by one downloader at a time and taken over once the lease lapses.
func TestDownloadClaimsAndLeases(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	id := queuedDownload(t, s, "tk-a")
	const lease = 30 * time.Second

	got, err := s.ClaimDownload(ctx, id, "A", lease)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.Owner != "A" || got.Status != record.DownloadRunning || !got.LeaseUntil.Equal(t0.Add(lease)) || got.URL != "https://r/tk-a" {
		t.Fatalf("claimed %+v", got)
	}
	if _, err := s.ClaimDownload(ctx, id, "B", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("B claimed a download A holds: %v", err)
	}
	if err := s.RenewDownload(ctx, id, "B", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("B renewed A's claim: %v", err)
	}
	// A renews before its lease lapses: B still cannot take it.
	clk.Advance(20 * time.Second)
	if err := s.RenewDownload(ctx, id, "A", lease); err != nil {
		t.Fatal(err)
	}
	clk.Advance(20 * time.Second)
	if _, err := s.ClaimDownload(ctx, id, "B", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("B took a renewed claim: %v", err)
	}
	// A stops renewing (killed): once its lease lapsed, B takes over.
	clk.Advance(lease)
	if got, err = s.ClaimDownload(ctx, id, "B", lease); err != nil || got.Owner != "B" {
		t.Fatalf("takeover of a lapsed lease: %+v %v", got, err)
	}
	// A, come back to life, can neither renew nor report.
	if err := s.RenewDownload(ctx, id, "A", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("A renewed a claim it lost: %v", err)
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Bytes: 1, Owner: "A"}); !errors.Is(err, record.ErrConflict) {
		t.Errorf("A reported on a download it lost: %v", err)
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadRunning, Bytes: 5, Owner: "B"}); err != nil {
		t.Fatal(err)
	}
	// Stopping releases the claim: anyone may resume at once.
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadQueued, Bytes: 5, Owner: "B"}); err != nil {
		t.Fatal(err)
	}
	list, _ := s.Downloads(ctx, "tk-a")
	if list[0].Owner != "" || !list[0].LeaseUntil.IsZero() || list[0].Bytes != 5 {
		t.Errorf("stopped download still held: %+v", list[0])
	}
	if _, err := s.ClaimDownload(ctx, id, "C", lease); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Bytes: 9, Total: 9, Owner: "C"}); err != nil {
		t.Fatal(err)
	}
	// A done download is neither claimed nor queued again: a second process
	// that saw the task succeed does not save it twice.
	if _, err := s.ClaimDownload(ctx, id, "D", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("claimed a done download: %v", err)
	}
	if again, err := s.QueueDownload(ctx, "tk-a", 0, record.KindURL, "/dl/other.mp4"); err != nil || again != id {
		t.Fatalf("re-queue done: %d %v", again, err)
	}
	list, _ = s.Downloads(ctx, "tk-a")
	if list[0].Status != record.DownloadDone || list[0].Path != "/dl/tk-a.mp4" || list[0].Bytes != 9 || list[0].Owner != "" {
		t.Errorf("done download was re-queued: %+v", list[0])
	}
	if _, err := s.TakeOverDownload(ctx, id, "C", "D", lease); !errors.Is(err, record.ErrConflict) {
		t.Errorf("took over a done download: %v", err)
	}
	if _, err := s.ClaimDownload(ctx, 999, "A", lease); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("claim of no download: %v", err)
	}
	if _, err := s.ClaimDownload(ctx, id, "", lease); err == nil {
		t.Error("claimed without an owner")
	}
}

// A holder known to be dead is replaced at once, whatever its lease; a
// takeover names the holder it replaces, so two takeovers do not both win.
func TestTakeOverDownloadFromDeadHolder(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	id := queuedDownload(t, s, "tk-a")
	if _, err := s.TakeOverDownload(ctx, id, "dead", "B", time.Minute); !errors.Is(err, record.ErrConflict) {
		t.Errorf("took over a download nobody held: %v", err)
	}
	if _, err := s.ClaimDownload(ctx, id, "dead", time.Hour); err != nil {
		t.Fatal(err)
	}
	got, err := s.TakeOverDownload(ctx, id, "dead", "B", time.Minute)
	if err != nil || got.Owner != "B" || !got.LeaseUntil.Equal(t0.Add(time.Minute)) || got.Status != record.DownloadRunning {
		t.Fatalf("takeover: %+v %v", got, err)
	}
	if _, err := s.TakeOverDownload(ctx, id, "dead", "C", time.Minute); !errors.Is(err, record.ErrConflict) {
		t.Errorf("a second takeover from the same dead holder won too: %v", err)
	}
	if _, err := s.TakeOverDownload(ctx, id, "", "C", time.Minute); err == nil {
		t.Error("took over without naming the holder")
	}
}

// Two clappers on one history file claim the same downloads at once: each
// download is won by exactly one.
func TestDownloadClaimIsExclusiveAcrossStores(t *testing.T) {
	open := sharedDatabase(t)
	stores := [2]*Store{open(), open()}
	var ids []int64
	for i := range 10 {
		ids = append(ids, queuedDownload(t, stores[0], fmt.Sprint("tk-", i)))
	}
	ctx := context.Background()
	wins := make([]atomic.Int32, len(ids))
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, id := range ids {
				_, err := stores[g%2].ClaimDownload(ctx, id, fmt.Sprint("owner-", g), time.Minute)
				switch {
				case err == nil:
					wins[i].Add(1)
				case !errors.Is(err, record.ErrConflict):
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for i := range wins {
		if n := wins[i].Load(); n != 1 {
			t.Errorf("download %d claimed %d times", ids[i], n)
		}
	}
}
