package history

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"clapper/record"
)

// A broad search's totals and charts (a word of two letters, in three
// tasks of five) hold none of the matches and map no file: the process's
// resident size after the searches, and what they added to it, stay those
// of an idle store whatever the history's size (-tasks).
func BenchmarkBroadSearchResident(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	from, to := chartSpan(record.Filter{})
	before := residentMB(b)
	for b.Loop() {
		if _, err := s.TotalsMatching(ctx, record.Filter{Text: "ne"}, from, to); err != nil {
			b.Fatal(err)
		}
	}
	after := residentMB(b)
	b.ReportMetric(after, "MB-resident")
	b.ReportMetric(after-before, "MB-added")
}

// residentMB is the process's resident set (VmRSS), in MB.
func residentMB(b *testing.B) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
