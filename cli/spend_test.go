package cli

import (
	"clapper/studio"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// --variations 4 sends four versions of one request with four distinct
// seeds, a set in history, and --wait follows all of them.
func TestVariationsSendDistinctSeeds(t *testing.T) {
	svc, flags := countingSandbox(t)
	r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox",
		"--variations", "4", "--wait", "--no-download", "--json"}, flags...)...)
	if r.code != 0 || svc.count() != 4 {
		t.Fatalf("exit %d, %d sent:\n%s%s", r.code, svc.count(), r.out, r.err)
	}
	var sum studio.SetSummary
	if err := json.Unmarshal([]byte(r.out), &sum); err != nil {
		t.Fatalf("%v:\n%s", err, r.out)
	}
	seeds := map[string]bool{}
	for _, l := range sum.Lines {
		if !strings.HasPrefix(l.Label, "seed=") || l.State != "success" {
			t.Errorf("version %d: %q %s", l.Line, l.Label, l.State)
		}
		seeds[l.Label] = true
	}
	if sum.Kind != "variations" || sum.Done != 4 || len(seeds) != 4 {
		t.Fatalf("want 4 versions done with 4 seeds, got %+v", sum)
	}
}

// --vary sends one version per value, typed by the catalog; a value the
// model does not take refuses them all; an operation without a seed
// refuses --variations, saying why.
func TestVaryChecksEveryValueAndSeedlessOperationsRefuseVariations(t *testing.T) {
	svc, flags := countingSandbox(t)
	r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox",
		"--vary", "duration=5,99,8"}, flags...)...)
	if r.code != 2 || !strings.Contains(r.err, "version 2 (duration=99): duration") || svc.count() != 0 {
		t.Fatalf("exit %d, %d sent:\n%s", r.code, svc.count(), r.err)
	}
	r = execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox",
		"--vary", "duration=5,8", "--wait", "--no-download"}, flags...)...)
	if r.code != 0 || svc.count() != 2 || !strings.Contains(r.err, "(duration=8)") {
		t.Fatalf("exit %d, %d sent:\n%s%s", r.code, svc.count(), r.out, r.err)
	}
	// Prompts hold commas: | separates them, as in the TUI.
	before := svc.count()
	r = execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=p",
		"--vary", "prompt=a fox, at dawn|a wolf, at dusk", "--no-download"}, flags...)...)
	if r.code != 0 || svc.count()-before != 2 || !strings.Contains(r.err, "(prompt=a fox, at dawn)") || !strings.Contains(r.err, "(prompt=a wolf, at dusk)") {
		t.Fatalf("prompts with commas: exit %d, %d sent:\n%s%s", r.code, svc.count()-before, r.out, r.err)
	}
	r = execute("", append([]string{"create", "audio-tts", "--set", "text=hello", "--set", "voice_setting_voice_id=female-shaonv",
		"--variations", "3"}, flags...)...)
	if r.code != 2 || !strings.Contains(r.err, "no seed field") {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
}

// The daily and monthly caps refuse a create, a batch or a set of
// variations that would pass them (exit 2, nothing sent); --over-cap sends.
func TestCreditCapsRefuseAndOverCapSends(t *testing.T) {
	data := t.TempDir()
	base := []string{"--data-dir", data, "--sandbox-speed", "3600"}
	create := append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox"}, base...)
	r := execute("", append(create, "--daily-cap", "1")...)
	if r.code != 2 || !strings.Contains(r.err, "daily credit cap is 1 credit") || embeddedTasks(t, data) != 0 {
		t.Fatalf("daily: exit %d:\n%s", r.code, r.err)
	}
	t.Setenv("CLAPPER_MONTHLY_CREDIT_CAP", "1")
	r = execute("", append(create, "--variations", "2")...)
	if r.code != 2 || !strings.Contains(r.err, "monthly credit cap") || !strings.Contains(r.err, "these variations cost") || embeddedTasks(t, data) != 0 {
		t.Fatalf("monthly: exit %d:\n%s", r.code, r.err)
	}
	r = execute("", append([]string{"batch", batchLines(t, 3, 0)}, base...)...)
	if r.code != 2 || !strings.Contains(r.err, "this batch costs") || embeddedTasks(t, data) != 0 {
		t.Fatalf("batch: exit %d:\n%s", r.code, r.err)
	}
	r = execute("", append(create, "--over-cap")...)
	if r.code != 0 || embeddedTasks(t, data) != 1 {
		t.Fatalf("--over-cap: exit %d:\n%s", r.code, r.err)
	}
	// Spent now passes the cap: even an unpriced request is refused.
	t.Setenv("CLAPPER_MONTHLY_CREDIT_CAP", "off")
	r = execute("", append(create, "--daily-cap", "off")...)
	if r.code != 0 || embeddedTasks(t, data) != 2 {
		t.Fatalf("caps off: exit %d:\n%s", r.code, r.err)
	}
}

// Without --wait, variations past five wait on our side and the command
// ends once the last is sent, not when they end.
func TestVariationsWithoutWaitEndOnceAllAreSent(t *testing.T) {
	svc, flags := countingSandbox(t)
	r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox",
		"--variations", "7"}, flags...)...)
	if r.code != 0 || svc.count() != 7 {
		t.Fatalf("exit %d, %d sent:\n%s%s", r.code, svc.count(), r.out, r.err)
	}
	if !strings.Contains(r.err, "at most 5 at the service at once; the rest wait here") || !strings.Contains(r.err, "(seed=") {
		t.Fatalf("the wait on our side is not told:\n%s", r.err)
	}
}

// A scene edit is charged like a new scene of its length: one whose price
// would take the day past the cap is refused (exit 2, no version made)
// though the day's spending alone is under it; --over-cap sends it. A
// composition the sandbox charges nothing for passes the same cap.
func TestSceneEditsAreCheckedAgainstTheCaps(t *testing.T) {
	data := t.TempDir()
	base := []string{"--data-dir", data, "--sandbox-speed", "3600"}
	r := execute("", append([]string{"create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--json"}, base...)...)
	var created struct{ ID string }
	if r.code != 0 || json.Unmarshal([]byte(r.out), &created) != nil {
		t.Fatalf("create: exit %d:\n%s%s", r.code, r.out, r.err)
	}
	var job jobJSON
	for deadline := time.Now().Add(10 * time.Second); job.State != "success"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", job.State)
		}
		r = execute("", append([]string{"scenes", created.ID, "--json"}, base...)...)
		job = jobJSON{}
		json.Unmarshal([]byte(r.out), &job)
	}
	scene2 := job.JobRecords[1].Jobs[0].ID
	spent := 100 // the sandbox's price of a 25 s one-click job
	edit := append([]string{"scenes", "edit", created.ID, "--scene-job", scene2, "--prompt", "a storm rolls in",
		"--daily-cap", strconv.Itoa(spent + 1)}, base...)
	r = execute("", edit...)
	if r.code != 2 || !strings.Contains(r.err, "tasks have cost 100 credits today; this scene edit costs 32 more") {
		t.Fatalf("edit past the cap: exit %d:\n%s%s", r.code, r.out, r.err)
	}
	if r = execute("", append([]string{"scenes", created.ID}, base...)...); strings.Contains(r.out, " v2 ") {
		t.Fatalf("a refused edit made a version:\n%s", r.out)
	}
	r = execute("", append(edit, "--over-cap")...)
	if r.code != 0 || !strings.Contains(r.out, "created as scene 2 v2; cost 32 credits (sandbox price table)") {
		t.Fatalf("--over-cap: exit %d:\n%s%s", r.code, r.out, r.err)
	}
	r = execute("", append([]string{"scenes", "compose", created.ID, "--daily-cap", "1"}, base...)...)
	if r.code != 0 || !strings.Contains(r.out, "cost 0 credits") {
		t.Fatalf("compose: exit %d:\n%s%s", r.code, r.out, r.err)
	}
}

// --monthly-cap goes over the environment's monthly cap, both ways.
func TestMonthlyCapFlagGoesOverTheEnvironment(t *testing.T) {
	data := t.TempDir()
	create := []string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox", "--data-dir", data, "--sandbox-speed", "3600"}
	t.Setenv("CLAPPER_MONTHLY_CREDIT_CAP", "off")
	r := execute("", append(create, "--monthly-cap", "1")...)
	if r.code != 2 || !strings.Contains(r.err, "monthly credit cap is 1 credit") || embeddedTasks(t, data) != 0 {
		t.Fatalf("--monthly-cap 1: exit %d:\n%s", r.code, r.err)
	}
	t.Setenv("CLAPPER_MONTHLY_CREDIT_CAP", "1")
	if r = execute("", append(create, "--monthly-cap", "off")...); r.code != 0 || embeddedTasks(t, data) != 1 {
		t.Fatalf("--monthly-cap off over the environment's 1: exit %d:\n%s", r.code, r.err)
	}
}
