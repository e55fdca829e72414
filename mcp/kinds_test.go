package mcp

import (
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api/sandbox"
	"clapper/record"
)

// wait_task waits as long as timeout_seconds says, not a thousandth of
// it: a task the sandbox holds running (its clock stands still) is
// answered "timeout" no sooner than the bound, and well before the
// default wait.
func TestWaitLastsAtLeastItsBound(t *testing.T) {
	r := newRig(t, rigOpts{clock: sandbox.NewFakeClock(time.Now())})
	id := waitForRunning(t, r)
	start := time.Now()
	var out taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": id, "timeout_seconds": 0.6}, &out)
	took := time.Since(start)
	if out.Waited != "timeout" {
		t.Fatalf("the task ended while the sandbox's clock stood still: %+v", out)
	}
	if took < 600*time.Millisecond || took >= DefaultWait {
		t.Errorf("a wait of timeout_seconds 0.6 took %v", took)
	}
}

// A video's cover, saved by download_results, is read through its own
// resource as the image it is (not the video of the same index).
func TestAVideosCoverIsReadAsAResource(t *testing.T) {
	r := newRig(t, rigOpts{})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	res := r.call(t, "download_results", map[string]any{"task_id": c.TaskID})
	var cover *sdk.ResourceLink
	for _, ct := range res.Content {
		if l, ok := ct.(*sdk.ResourceLink); ok && strings.HasPrefix(l.URI, "clapper://cover/") {
			cover = l
		}
	}
	if cover == nil || !strings.HasPrefix(cover.MIMEType, "image/") {
		t.Fatalf("no cover link with an image type: %+v", res.Content)
	}
	rr, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: cover.URI})
	if err != nil {
		t.Fatalf("read %s: %v", cover.URI, err)
	}
	dls, err := r.st.Record().Downloads(t.Context(), c.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	var saved []byte
	for _, d := range dls {
		if d.Kind == record.KindCover {
			saved, _ = os.ReadFile(d.Path)
		}
	}
	if got := rr.Contents[0]; !strings.HasPrefix(got.MIMEType, "image/") || len(saved) == 0 || string(got.Blob) != string(saved) {
		t.Errorf("%s answered %s, %d bytes; the saved cover is %d bytes", cover.URI, got.MIMEType, len(got.Blob), len(saved))
	}
}
