package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api/catalog"
)

func TestModelsShowEachRulesLayer(t *testing.T) {
	r := runCLI(t, nil, "", "models", "text2video")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{"model svcq2 (service 1)", "model svcq3-pro (spec)", "[service 1]", "[spec]", "default 5; 1 to 10 seconds", "\n  1: notes, Beyond the spec's tables\n"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("models text2video lacks %q:\n%s", want, r.out)
		}
	}
}

func TestModelsListMarksAddedModels(t *testing.T) {
	r := runCLI(t, nil, "", "models")
	if r.code != 0 || !strings.Contains(r.out, "svcq1, svcq2 [service]") || strings.Contains(r.out, "svcq3-pro [") {
		t.Errorf("models overview:\n%s", r.out)
	}
}

func writeCatalog(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(catalog.ResetUser)
	return p
}

// A model the service ships tomorrow is one edit of catalog.json away: the
// file adds it, the dry run accepts it, the models list marks it "user".
func TestCatalogFileAddsAModel(t *testing.T) {
	p := writeCatalog(t, `[{"operation":"text2video","models":[{"model":"svcq5","like":"svcq2","cite":"our tests \u001b]8;;https://e.com\u0007of May","fields":[
		{"name":"duration","max":20},{"name":"look","kind":"choice","options":["anime","real"],"help":"the \u001b[2Jlook"}]}]}]`)
	r := runCLI(t, nil, "", "--catalog", p, "models", "text2video")
	if r.code != 0 || !strings.Contains(r.out, "model svcq5 (user 1)") || !strings.Contains(r.out, "one of anime, real") {
		t.Fatalf("models with a user catalog: %+v", r)
	}
	// Where the file says it read the model is shown, as the file's text
	// always is: without its escape sequences.
	if !strings.Contains(r.out, "[user 1]  the look\n") || !strings.Contains(r.out, "\n  1: our tests of May\n") || strings.ContainsRune(r.out, 0x1b) {
		t.Errorf("the user's source and help: %q", r.out)
	}
	r = runCLI(t, nil, "", "--catalog", p, "create", "text2video", "--set", "model=svcq5", "--set", "prompt=a fox",
		"--set", "duration=18", "--set", "look=anime", "--dry-run")
	if r.code != 0 {
		t.Fatalf("dry run of a user model: %+v", r)
	}
	r = runCLI(t, nil, "", "--catalog", p, "create", "text2video", "--set", "model=svcq5", "--set", "prompt=a fox",
		"--set", "duration=21", "--dry-run")
	if r.code != 2 || !strings.Contains(r.err, "duration") {
		t.Fatalf("the user's range is enforced: %+v", r)
	}
}

// A broken file is named with its entry and ignored whole: the program
// still runs on the built-in layers.
func TestBrokenCatalogFileIsNamedAndIgnored(t *testing.T) {
	p := writeCatalog(t, `[{"operation":"text2video","models":[{"model":"svcq5","fields":[{"name":"duration","min":9,"max":2}]}]}]`)
	r := runCLI(t, nil, "", "--catalog", p, "models", "text2video")
	if r.code != 0 {
		t.Fatalf("a broken catalog must not stop the program: %+v", r)
	}
	for _, want := range []string{p, `text2video model "svcq5"`, "field duration: min 9 is above max 2", "using the built-in catalog"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("warning lacks %q: %s", want, r.err)
		}
	}
	if strings.Contains(r.out, "svcq5") || !strings.Contains(r.out, "model svcq2 (service 1)") {
		t.Errorf("the built-in layers must be in force alone:\n%s", r.out)
	}
}
