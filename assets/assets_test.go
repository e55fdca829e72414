package assets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// box is one ISO-BMFF box: its four-character type and its payload.
type box struct {
	typ  string
	body []byte
}

// boxes splits b into its top-level boxes, failing on any malformed size so a
// truncated or non-MP4 file cannot pass.
func boxes(b []byte) ([]box, error) {
	var out []box
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, fmt.Errorf("trailing %d bytes", len(b))
		}
		size := int(binary.BigEndian.Uint32(b))
		hdr := 8
		if size == 1 { // 64-bit size follows the type
			if len(b) < 16 {
				return nil, fmt.Errorf("short large-size header")
			}
			size, hdr = int(binary.BigEndian.Uint64(b[8:])), 16
		}
		if size < hdr || size > len(b) {
			return nil, fmt.Errorf("box %q size %d out of range (%d left)", b[4:8], size, len(b))
		}
		out = append(out, box{string(b[4:8]), b[hdr:size]})
		b = b[size:]
	}
	return out, nil
}

func find(bs []box, typ string) (box, bool) {
	for _, x := range bs {
		if x.typ == typ {
			return x, true
		}
	}
	return box{}, false
}

// videoSize reads the display size of the first track from moov/trak/tkhd.
func videoSize(mp4 []byte) (w, h int, err error) {
	top, err := boxes(mp4)
	if err != nil {
		return 0, 0, err
	}
	moov, ok := find(top, "moov")
	if !ok {
		return 0, 0, fmt.Errorf("no moov box")
	}
	inMoov, err := boxes(moov.body)
	if err != nil {
		return 0, 0, err
	}
	trak, ok := find(inMoov, "trak")
	if !ok {
		return 0, 0, fmt.Errorf("no trak box")
	}
	inTrak, err := boxes(trak.body)
	if err != nil {
		return 0, 0, err
	}
	tkhd, ok := find(inTrak, "tkhd")
	if !ok {
		return 0, 0, fmt.Errorf("no tkhd box")
	}
	// Width and height are the last two 16.16 fixed-point fields in both
	// versions of tkhd.
	if len(tkhd.body) < 84 {
		return 0, 0, fmt.Errorf("tkhd too short: %d", len(tkhd.body))
	}
	end := tkhd.body[len(tkhd.body)-8:]
	return int(binary.BigEndian.Uint32(end) >> 16), int(binary.BigEndian.Uint32(end[4:]) >> 16), nil
}

func TestEmbeddedVideosAreMP4WithTheirRatio(t *testing.T) {
	total := 0
	for _, ratio := range videoRatioNames() {
		t.Run(ratio, func(t *testing.T) {
			b := Video(ratio)
			total += len(b)
			if len(b) < 1000 || len(b) > 64<<10 {
				t.Fatalf("size %d bytes, want a small real video (1 KB..64 KB)", len(b))
			}
			top, err := boxes(b)
			if err != nil {
				t.Fatalf("not a well-formed MP4: %v", err)
			}
			if top[0].typ != "ftyp" || len(top[0].body) < 8 {
				t.Fatalf("first box is %q, want ftyp", top[0].typ)
			}
			if brands := top[0].body; !bytes.Contains(brands, []byte("isom")) {
				t.Errorf("ftyp brands %q lack isom", brands)
			}
			if _, ok := find(top, "mdat"); !ok {
				t.Error("no mdat box: no media samples")
			}
			w, h, err := videoSize(b)
			if err != nil {
				t.Fatal(err)
			}
			if w <= 0 || h <= 0 {
				t.Fatalf("video size %dx%d", w, h)
			}
			want, _ := parseRatio(ratio)
			if got := float64(w) / float64(h); got < want*0.99 || got > want*1.01 {
				t.Errorf("video is %dx%d (%.3f), want ratio %s (%.3f)", w, h, got, ratio, want)
			}
		})
	}
	if total > 300<<10 {
		t.Errorf("embedded videos total %d bytes, budget is 300 KB", total)
	}
}

func TestVideoPicksNearestRatio(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"16:9", "16:9"},
		{"9:16", "9:16"},
		{"1:1", "1:1"},
		{"4:3", "4:3"},
		{"3:4", "3:4"},
		{"auto", "16:9"},
		{"", "16:9"},
		{"garbage", "16:9"},
		{"0:1", "16:9"},
		{"-4:3", "16:9"},
		{"21:9", "16:9"},
		{"32:9", "16:9"},
		{"3:2", "4:3"},  // 1.5: log distance to 4:3 is 0.118, to 16:9 is 0.170
		{"2:3", "3:4"},  // mirror of 3:2
		{"5:4", "4:3"},  // 1.25 is nearer 4:3 than 1:1
		{"10:9", "1:1"}, // 1.11 is nearer 1:1 than 4:3
		{"9:21", "9:16"},
		{" 1920:1080 ", "16:9"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got, want := Video(tt.in), Video(tt.want); !bytes.Equal(got, want) {
				t.Errorf("Video(%q) is not the %s video", tt.in, tt.want)
			}
		})
	}
}

func TestVideosAreDistinct(t *testing.T) {
	// Guards TestVideoPicksNearestRatio, which compares bytes: identical files
	// would make every expectation pass.
	ratios := videoRatioNames()
	for i, a := range ratios {
		for _, b := range ratios[i+1:] {
			if bytes.Equal(Video(a), Video(b)) {
				t.Errorf("%s and %s share the same bytes", a, b)
			}
		}
	}
	if !slices.Equal(ratios, []string{"16:9", "9:16", "1:1", "4:3", "3:4"}) {
		t.Errorf("embedded ratios = %v", ratios)
	}
}

// videoRatioNames lists the ratios that have an embedded video, in order.
func videoRatioNames() []string {
	out := make([]string, len(videoRatios))
	for i, r := range videoRatios {
		out[i] = r.name
	}
	return out
}
