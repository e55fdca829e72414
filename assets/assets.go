// Package assets holds the files compiled into the binary.
//
// The sample videos are what the sandbox serves as video task results: one tiny
// H.264 MP4 per aspect ratio the service offers, so a result always has the
// shape the user asked for without the sandbox encoding video at run time.
// They were produced once, at development time, with ffmpeg 5.1 (libx264 and
// DejaVu fonts); nothing at build or run time needs ffmpeg. For 16:9 (the
// others differ only in size and label; 9:16 is 180x320, 1:1 240x240, 4:3
// 240x180, 3:4 180x240):
//
//	ffmpeg -f lavfi -i "gradients=s=320x180:r=12:d=4:speed=0.03:n=3:seed=7:c0=0x1d3557:c1=0xe63946:c2=0xf1c40f" \
//	  -vf "drawtext=fontfile=DejaVuSans-Bold.ttf:text='16\:9':fontsize=min(w\,h)/4:fontcolor=white:borderw=2:bordercolor=black@0.6:x=(w-tw)/2:y=(h-th)/2,drawtext=fontfile=DejaVuSansMono.ttf:text='sandbox %{eif\:t\:d}s':fontsize=min(w\,h)/12:fontcolor=white@0.85:borderw=1:bordercolor=black@0.4:x=(w-tw)/2:y=h-th-h/20" \
//	  -c:v libx264 -preset veryslow -crf 30 -pix_fmt yuv420p -profile:v main -movflags +faststart -an \
//	  -map_metadata -1 -fflags +bitexact -flags:v +bitexact video/16x9.mp4
package assets

import (
	"embed"
	"math"
	"strconv"
	"strings"
)

//go:embed video/*.mp4
var videoFS embed.FS

// videoRatio pairs a ratio with its numeric value; the list keeps the
// service's usual order.
type videoRatio struct {
	name  string
	value float64
}

var videoRatios = []videoRatio{
	{"16:9", 16.0 / 9},
	{"9:16", 9.0 / 16},
	{"1:1", 1},
	{"4:3", 4.0 / 3},
	{"3:4", 3.0 / 4},
}

// Video returns the embedded MP4 whose aspect ratio is closest to aspectRatio
// ("W:H"). Closeness is measured on log(W/H) so that 2:1 and 1:2 are equally
// far from 1:1. "auto", "" and anything unparsable give 16:9, the service's
// default ratio, because a result must always carry some video.
func Video(aspectRatio string) []byte {
	best := videoRatios[0]
	if want, ok := parseRatio(aspectRatio); ok {
		bestDist := math.Inf(1)
		for _, r := range videoRatios {
			if d := math.Abs(math.Log(want) - math.Log(r.value)); d < bestDist {
				best, bestDist = r, d
			}
		}
	}
	b, err := videoFS.ReadFile("video/" + strings.Replace(best.name, ":", "x", 1) + ".mp4")
	if err != nil {
		// The files are embedded at build time, so this is a broken build.
		panic("assets: missing embedded video for " + best.name + ": " + err.Error())
	}
	return b
}

// parseRatio reads "W:H" with positive integers W and H.
func parseRatio(s string) (float64, bool) {
	ws, hs, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, false
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		return 0, false
	}
	return float64(w) / float64(h), true
}
