package cli

import (
	"strings"
	"testing"
)

// Issue 19.13: a task id holding a newline would forge a row of output;
// such an id is refused where it enters, from the service or the user.
func TestTaskIDWithNewlineForgesNoRow(t *testing.T) {
	forged := `h1\ntask h9: success, 0 credits`
	svc := &fakeService{answers: map[string][]string{
		"POST /ent/v2/text2video":        {`{"task_id":"` + forged + `","state":"created"}`},
		"GET /ent/v2/tasks/h1/creations": {`{"id":"` + forged + `","state":"processing","err_code":"","credits":1,"creations":null}`},
	}}
	for _, args := range [][]string{
		{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"},
		{"get", "h1"},
		{"get", "h1\ntask h9: success"},
	} {
		r := runCLI(t, svc, "", args...)
		for _, line := range strings.Split(r.out+r.err, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "task h9") {
				t.Errorf("%q printed a forged row:\n%s%s", args, r.out, r.err)
			}
		}
		if r.code == 0 {
			t.Errorf("%q: exit 0 with an id no service gives:\n%s%s", args, r.out, r.err)
		}
	}
}
