package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/studio"
)

// One data dir across commands, as a user's machine has.
func runIn(t *testing.T, dataDir string, args ...string) run {
	t.Helper()
	return execute("", append(args, "--data-dir", dataDir)...)
}

func TestSubjectsCreateEditListAndUse(t *testing.T) {
	dir := t.TempDir()
	img := writePNG(t, t.TempDir(), "mia.png", 256, 256)
	r := runIn(t, dir, "subjects", "create", "mia", "--image", img, "--voice", "English_Graceful_Lady", "--json")
	if r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	var sb struct {
		ID     string   `json:"id"`
		Images []string `json:"images"`
	}
	if err := json.Unmarshal([]byte(r.out), &sb); err != nil || sb.ID == "" || len(sb.Images) != 1 {
		t.Fatalf("created %s: %v", r.out, err)
	}
	if r := runIn(t, dir, "subjects", "edit", sb.ID, "--style", "ink"); r.code != 0 || !strings.Contains(r.out, sb.ID) {
		t.Fatalf("edit: %+v", r)
	}
	r = runIn(t, dir, "subjects")
	for _, want := range []string{"mia", sb.ID, "English_Graceful_Lady (system)", "ink"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("subjects list lacks %q:\n%s", want, r.out)
		}
	}
	if r := runIn(t, dir, "subjects", "edit", sb.ID); r.code != 2 || !strings.Contains(r.err, "needs something to change") {
		t.Errorf("edit with nothing: %+v", r)
	}
	if r := runIn(t, dir, "subjects", "create", "x", "--image", img, "--image", img, "--image", img, "--image", img); r.code != 2 || !strings.Contains(r.err, "images") {
		t.Errorf("four images: %+v", r)
	}
	use := func(id string) run {
		return runIn(t, dir, "create", "reference2video", "--set", "model=svcq2", "--set", "prompt=[@mia] waves",
			"--set", `subjects:=[{"name":"mia","server_id":"`+id+`"}]`)
	}
	if r := use(sb.ID); r.code != 0 {
		t.Errorf("reference2video with the stored subject: %+v", r)
	}
	r = use("sbs404")
	if r.code != 2 || !strings.Contains(r.err, `subjects[0].server_id: no stored subject "sbs404" in your library or on the service`) {
		t.Errorf("an unknown stored subject: %+v", r)
	}
}

// With uploads set to always, a local image goes up once: the second task
// names the same upload, found by the bytes' SHA-256 in history.
func TestUploadsAlwaysReuseTheSameBytes(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv(studio.EnvConfigDir, cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"uploads":"always"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	img := writePNG(t, t.TempDir(), "cat.png", 300, 200)
	var uris []string
	for range 2 {
		r := runIn(t, dir, "create", "img2video", "--set", "model=svcq2-pro", "--set", "images="+img, "--json")
		if r.code != 0 {
			t.Fatalf("create: %+v", r)
		}
		var echo struct {
			Images []string `json:"images"`
		}
		if err := json.Unmarshal([]byte(r.out), &echo); err != nil || len(echo.Images) != 1 {
			t.Fatalf("echo %s: %v", r.out, err)
		}
		uris = append(uris, echo.Images[0])
	}
	if !strings.HasPrefix(uris[0], "ssupload:?id=") || uris[0] != uris[1] {
		t.Errorf("uploads %v: want one ssupload URI used twice", uris)
	}
}

func TestUploadsSettingIsChecked(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv(studio.EnvConfigDir, cfg)
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"uploads":"sometimes"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, t.TempDir(), "history"); r.code != 2 || !strings.Contains(r.err, `uploads "sometimes"`) {
		t.Errorf("a bad uploads setting: %+v", r)
	}
}

func TestVoicesSystemListsTheServiceVoices(t *testing.T) {
	r := runIn(t, t.TempDir(), "voices", "--system")
	if r.code != 0 || !strings.Contains(r.out, "professional_host") || !strings.Contains(r.out, "Korean_SweetGirl") {
		t.Errorf("voices --system: %+v", r)
	}
}

func TestAccountShowsCreditsAndConcurrency(t *testing.T) {
	r := runIn(t, t.TempDir(), "account")
	if r.code != 0 || !strings.Contains(r.out, "credits left  100000") || !strings.Contains(r.out, "of 5 at once") {
		t.Errorf("account: %+v", r)
	}
	r = runIn(t, t.TempDir(), "account", "--json")
	if r.code != 0 || !strings.Contains(r.out, `"concurrency_limit":5`) {
		t.Errorf("account --json: %+v", r)
	}
}

// A PNG given as data:image/jpeg is sent as the PNG it is: the dry run
// prints it relabelled and the catalog takes it.
func TestCreateRelabelsImagesByContent(t *testing.T) {
	png := writePNG(t, t.TempDir(), "a.png", 200, 200)
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	uri := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
	r := runIn(t, t.TempDir(), "create", "img2video", "--set", "model=svcq2-pro", "--set", "images="+uri, "--dry-run")
	if r.code != 0 || !strings.Contains(r.out, "data:image/png;base64,") {
		t.Errorf("a mislabelled PNG: %+v", r)
	}
}
