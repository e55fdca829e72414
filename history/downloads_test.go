package history

import (
	"context"
	"errors"
	"testing"
	"time"

	"clapper/api"
)

func TestDownloads(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-a", `{}`)
	submitted(t, s, "tk-b", `{}`)
	expA := t0.Add(24 * time.Hour)
	expB := t0.Add(time.Hour) // trending-replicate: expires sooner
	if _, err := s.ApplyResult(ctx, "tk-a", Update{State: api.StateSuccess, Creations: CreationsFrom(
		[]api.Creation{{ID: "a0", URL: "https://r/a0", CoverURL: "https://r/a0c"}, {ID: "a1", URL: "https://r/a1"}}, expA)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyResult(ctx, "tk-b", Update{State: api.StateSuccess, Creations: CreationsFrom(
		[]api.Creation{{ID: "b0", URL: "https://r/b0"}}, expB)}); err != nil {
		t.Fatal(err)
	}

	a0, err := s.QueueDownload(ctx, "tk-a", 0, KindURL, "/dl/a0.mp4")
	if err != nil {
		t.Fatal(err)
	}
	a0c, err := s.QueueDownload(ctx, "tk-a", 0, KindCover, "/dl/a0.jpg")
	if err != nil {
		t.Fatal(err)
	}
	b0, err := s.QueueDownload(ctx, "tk-b", 0, KindURL, "/dl/b0.mp4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		taskID string
		index  int
		kind   URLKind
		want   error
	}{
		{"no such task", "tk-z", 0, KindURL, ErrNotFound},
		{"no such creation", "tk-a", 5, KindURL, ErrNotFound},
		{"creation without that URL", "tk-a", 1, KindWatermarked, ErrNotFound},
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
	if err := s.UpdateDownload(ctx, a0, DownloadProgress{Status: DownloadRunning, Bytes: 512, Total: 2048}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, a0c, DownloadProgress{Status: DownloadDone, Path: "/dl/a0-final.jpg", Bytes: 90, Total: 90}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, b0, DownloadProgress{Status: DownloadExpired, Error: "URL expired"}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateDownload(ctx, 999, DownloadProgress{Status: DownloadDone}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown download: %v", err)
	}
	if err := s.UpdateDownload(ctx, a0, DownloadProgress{Status: "paused"}); err == nil {
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
	if video.ID != a0 || video.Status != DownloadRunning || video.Bytes != 512 || video.Total != 2048 ||
		video.Path != "/dl/a0.mp4" || !video.UpdatedAt.Equal(clk.Now()) || !video.CreatedAt.Equal(t0) ||
		video.TaskID != "tk-a" || video.Operation != api.OpText2Video {
		t.Errorf("video %+v", video)
	}
	if cover.Status != DownloadDone || cover.Path != "/dl/a0-final.jpg" || cover.URL != "https://r/a0c" {
		t.Errorf("cover %+v", cover)
	}
	pending, _ = s.PendingDownloads(ctx)
	if len(pending) != 1 || pending[0].ID != a0 {
		t.Errorf("pending after progress %+v: running ones must be resumed, done/expired not", pending)
	}

	// Re-queueing: a running download is left alone, an expired one restarts
	// from zero under the same id.
	if id, err := s.QueueDownload(ctx, "tk-a", 0, KindURL, "/elsewhere"); err != nil || id != a0 {
		t.Fatalf("re-queue running: %d %v", id, err)
	}
	if id, err := s.QueueDownload(ctx, "tk-b", 0, KindURL, "/dl/b0-again.mp4"); err != nil || id != b0 {
		t.Fatalf("re-queue expired: %d %v", id, err)
	}
	list, _ = s.Downloads(ctx, "tk-a")
	if list[1].Path != "/dl/a0.mp4" || list[1].Status != DownloadRunning {
		t.Errorf("running download was reset: %+v", list[1])
	}
	list, _ = s.Downloads(ctx, "tk-b")
	if d := list[0]; d.Status != DownloadQueued || d.Error != "" || d.Bytes != 0 || d.Path != "/dl/b0-again.mp4" {
		t.Errorf("expired download was not re-queued: %+v", d)
	}

	// A re-read with a re-signed URL is what the downloader sees next.
	if _, err := s.ApplyResult(ctx, "tk-b", Update{State: api.StateSuccess, Creations: CreationsFrom(
		[]api.Creation{{ID: "b0", URL: "https://r/b0?sig=2"}}, clk.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	list, _ = s.Downloads(ctx, "tk-b")
	if list[0].URL != "https://r/b0?sig=2" || !list[0].ExpiresAt.Equal(clk.Now().Add(time.Hour)) {
		t.Errorf("download does not follow the refreshed URL: %+v", list[0])
	}
}
