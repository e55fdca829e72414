package media

import (
	"strings"
	"testing"
)

func TestDimensions(t *testing.T) {
	tests := []struct {
		ratio, res string
		w, h       int
	}{
		{"16:9", "720p", 1280, 720},
		{"16:9", "540p", 960, 540},
		{"16:9", "1080p", 1920, 1080},
		{"16:9", "2K", 2560, 1440},
		{"16:9", "4K", 3840, 2160},
		{"9:16", "720p", 720, 1280},
		{"1:1", "1080p", 1080, 1080},
		{"4:3", "540p", 720, 540},
		{"3:4", "1080p", 1080, 1440},
		{"21:9", "1080p", 2520, 1080},
		{"21:9", "4K", 5040, 2160},
		{"2:3", "1080p", 1080, 1620},
		{"3:2", "2k", 2160, 1440},
		{"7:5", "540p", 756, 540},   // 756 exactly
		{"5:3", "540p", 900, 540},   // 900 exactly
		{"11:9", "720p", 880, 720},  // 880 exactly
		{"13:9", "540p", 780, 540},  // 780 exactly
		{"10:7", "720p", 1028, 720}, // 1028.57 rounds to the even 1028
		{"4:1", "720p", 2880, 720},
		{"1:4", "4K", 2160, 8640},
		{"auto", "720p", 1280, 720},
		{"", "1080p", 1920, 1080},
		{" AUTO ", "4k", 3840, 2160},
	}
	for _, tt := range tests {
		t.Run(tt.ratio+"@"+tt.res, func(t *testing.T) {
			w, h, err := Dimensions(tt.ratio, tt.res)
			if err != nil {
				t.Fatal(err)
			}
			if w != tt.w || h != tt.h {
				t.Errorf("got %dx%d, want %dx%d", w, h, tt.w, tt.h)
			}
			if w%2 != 0 || h%2 != 0 {
				t.Errorf("%dx%d has an odd side", w, h)
			}
		})
	}
}

func TestDimensionsErrors(t *testing.T) {
	tests := []struct {
		ratio, res string
		mention    string // the error must say what is allowed
	}{
		{"16:9", "", "540p, 720p, 1080p, 2K, 4K"},
		{"16:9", "8K", "540p, 720p, 1080p, 2K, 4K"},
		{"16:9", "720", "540p, 720p, 1080p, 2K, 4K"},
		{"16x9", "720p", "W:H"},
		{"16:0", "720p", "positive integers"},
		{"-16:9", "720p", "positive integers"},
		{"0:9", "720p", "positive integers"},
		{"1.5:1", "720p", "W:H"},
		{"16:9:1", "720p", "W:H"},
		{"square", "720p", "auto"},
		{"5:1", "720p", "1:4 to 4:1"},
		{"1:5", "720p", "1:4 to 4:1"},
	}
	for _, tt := range tests {
		t.Run(tt.ratio+"@"+tt.res, func(t *testing.T) {
			w, h, err := Dimensions(tt.ratio, tt.res)
			if err == nil {
				t.Fatalf("no error, got %dx%d", w, h)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not mention %q", err, tt.mention)
			}
		})
	}
}
