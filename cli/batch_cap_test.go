package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A resumed batch is held to a cap by what it still sends, not by the
// whole file: three lines ran, a fourth is added, and a daily cap with
// room for one more line lets the run send it; a cap with room for none
// refuses it, sending nothing.
func TestAResumedBatchIsPricedByWhatItStillSends(t *testing.T) {
	data := t.TempDir()
	flags := []string{"--data-dir", data, "--sandbox-speed", "3600"}
	file := filepath.Join(t.TempDir(), "products.jsonl")
	line := func(prompt string) string {
		return `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "` + prompt + `", "duration": 5}}` + "\n"
	}
	three := line("a red mug") + line("a blue mug") + line("a green mug")
	os.WriteFile(file, []byte(three), 0o600)
	r := execute("", append([]string{"batch", file}, flags...)...)
	if r.code != 0 || embeddedTasks(t, data) != 3 {
		t.Fatalf("first run: exit %d, %d sent:\n%s", r.code, embeddedTasks(t, data), r.err)
	}
	// "products.jsonl: 3 requests, 60 credits": each line costs a third.
	_, rest, _ := strings.Cut(r.err, "3 requests, ")
	whole, err := strconv.Atoi(strings.Fields(rest + " x")[0])
	if err != nil || whole <= 0 || whole%3 != 0 {
		t.Fatalf("no price of the first run in:\n%s", r.err)
	}
	each := whole / 3
	os.WriteFile(file, []byte(three+line("a white mug")), 0o600)
	r = execute("", append([]string{"batch", file, "--daily-cap", fmt.Sprint(whole + each - 1)}, flags...)...)
	if r.code == 0 || embeddedTasks(t, data) != 3 {
		t.Fatalf("a cap one credit short of the added line: exit %d, %d sent in all:\n%s", r.code, embeddedTasks(t, data), r.err)
	}
	r = execute("", append([]string{"batch", file, "--daily-cap", fmt.Sprint(whole + each)}, flags...)...)
	if r.code != 0 || embeddedTasks(t, data) != 4 {
		t.Fatalf("a cap with room for the added line: exit %d, %d sent in all:\n%s%s", r.code, embeddedTasks(t, data), r.out, r.err)
	}
}
