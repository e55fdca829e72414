package history

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// A done download whose file is gone may be claimed again; a report about
// an older path does not undo a download saved since elsewhere.
func TestLostVersionDownload(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	savedJobTask(t, s, api.StateSuccess)
	if ok, err := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/a.mp4", time.Minute); err != nil || !ok {
		t.Fatalf("claim %v %v", ok, err)
	}
	if err := s.FinishVersionDownload(ctx, "c-v1", "/dl/a.mp4", 7, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.LostVersionDownload(ctx, "c-v1", "/dl/other.mp4"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/a.mp4", time.Minute); ok {
		t.Fatal("a lost report about another path released a done download")
	}
	if err := s.LostVersionDownload(ctx, "c-v1", "/dl/a.mp4"); err != nil {
		t.Fatal(err)
	}
	j, _ := s.Job(ctx, "job-1")
	if d := j.Compose[0].Current().Download; d == nil || d.Status != record.DownloadFailed || d.Error == "" {
		t.Errorf("after the file was lost the download reads %+v, want failed with a reason", d)
	}
	if ok, err := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/b.mp4", time.Minute); err != nil || !ok {
		t.Errorf("a lost download not claimable again: %v %v", ok, err)
	}
}
