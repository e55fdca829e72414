package track

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// A result's content type counts only when it is of the result's kind: a
// video the server labels image/png is saved as the .mp4 its URL names,
// an image labelled video/mp4 as its .jpg; never with another kind's
// extension.
func TestAContentTypeOfAnotherKindDoesNotNameTheFile(t *testing.T) {
	mp4 := append([]byte("\x00\x00\x00\x18ftypmp42"), make([]byte, 32)...)
	srv := &hostileFiles{
		types:  map[string]string{"/v.mp4": "image/png", "/i.jpg": "video/mp4"},
		bodies: map[string][]byte{"/v.mp4": mp4, "/i.jpg": []byte("\xff\xd8\xff\xe0 a jpeg")},
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, c := range []struct {
		op        api.Operation
		body      map[string]any
		path, ext string
	}{
		{api.OpText2Video, body(), "/v.mp4", ".mp4"},
		{api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"}, "/i.jpg", ".jpg"},
	} {
		dl := saveResultOf(t, c.op, c.body, hs.URL+c.path, t.TempDir())
		if dl.Status != record.DownloadDone || filepath.Ext(dl.Path) != c.ext {
			t.Errorf("%s served as %s: %s %s, want a %s file", c.path, srv.types[c.path], dl.Status, dl.Path, c.ext)
		}
	}
}

// saveResultOf runs one result URL of a task of op, sent with body,
// through the downloader and returns its download.
func saveResultOf(t *testing.T, op api.Operation, body map[string]any, url, dir string) record.Download {
	t.Helper()
	retryPause = time.Millisecond
	svc := newService()
	c, store, clk := setup(t, svc)
	sub, err := (&Tracker{Client: c, Store: store, Clock: clk}).Submit(context.Background(), op, body)
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	res := &api.TaskResult{ID: id, State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: url}}}
	if _, err := store.ApplyResult(context.Background(), id, updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	if err := d.QueueResults(context.Background(), id, op, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	d.RunPending(context.Background())
	dls, err := store.Downloads(context.Background(), id)
	if err != nil || len(dls) != 1 {
		t.Fatalf("downloads %v (%v)", dls, err)
	}
	return dls[0]
}
