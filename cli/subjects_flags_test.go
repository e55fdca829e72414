package cli

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"clapper/api/sandbox"
)

// Every flag of subjects create and edit reaches the service, and
// --refresh reads subjects another machine stored: without it only this
// history's library is listed.
func TestSubjectFlagsReachTheService(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Speed: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	at := func(dir string, args ...string) run {
		return execute("", append(args, "--base-url", ts.URL, "--api-key", "k-123456789", "--data-dir", dir)...)
	}
	mine, other := t.TempDir(), t.TempDir()
	img := writePNG(t, t.TempDir(), "mia.png", 256, 256)
	r := at(other, "subjects", "create", "mia", "--image", img, "--video", "https://example.com/mia.mp4",
		"--description", "a girl in a red coat", "--json")
	var sb struct {
		ID          string   `json:"id"`
		Name        string   `json:"name"`
		Videos      []string `json:"videos"`
		Description string   `json:"description"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.out), &sb) != nil || sb.Description != "a girl in a red coat" ||
		len(sb.Videos) != 1 || sb.Videos[0] != "https://example.com/mia.mp4" {
		t.Fatalf("create: exit %d\n%s%s", r.code, r.out, r.err)
	}
	r = at(other, "subjects", "edit", sb.ID, "--name", "mia_two", "--description", "in a blue coat", "--json")
	if r.code != 0 || json.Unmarshal([]byte(r.out), &sb) != nil || sb.Name != "mia_two" || sb.Description != "in a blue coat" {
		t.Fatalf("edit: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if r = at(mine, "subjects"); strings.Contains(r.out, sb.ID) {
		t.Fatalf("without --refresh the service's subjects were read:\n%s", r.out)
	}
	if r = at(mine, "subjects", "--refresh"); r.code != 0 || !strings.Contains(r.out, sb.ID) || !strings.Contains(r.out, "mia_two") {
		t.Fatalf("--refresh: exit %d\n%s%s", r.code, r.out, r.err)
	}
}
