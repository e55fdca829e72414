package api

import "testing"

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 812: "812 B", 1023: "1023 B", 1024: "1 KB", 14*1024 + 900: "14 KB",
		1 << 20: "1 MB", 3<<20 + 1<<18: "3.2 MB", 24 << 20: "24 MB", 2 << 30: "2 GB",
	} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
