package cli

import (
	"fmt"
	"strings"
	"testing"

	"clapper/studio"
)

// Checking a 10,000-line batch file (issue 22: under 2 s), JSON Lines and
// CSV.
func BenchmarkCheckBatch10000(b *testing.B) {
	var jl, cs strings.Builder
	cs.WriteString("operation,model,prompt,duration,resolution\n")
	for i := range 10000 {
		fmt.Fprintf(&jl, `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "product %d turning on a table", "duration": 5, "resolution": "720p"}}`+"\n", i)
		fmt.Fprintf(&cs, "text2video,svcq3-turbo,product %d turning on a table,5,720p\n", i)
	}
	for _, c := range []struct{ name, file, data string }{{"jsonl", "b.jsonl", jl.String()}, {"csv", "b.csv", cs.String()}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				got := parseBatch(c.file, []byte(c.data), studio.Config{Uploads: studio.UploadAuto})
				if len(got.problems) != 0 || len(got.requests) != 10000 {
					b.Fatalf("%d problems (%v), %d requests", len(got.problems), got.problems[:min(3, len(got.problems))], len(got.requests))
				}
			}
		})
	}
}
