package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// The readers of MP4/MOV boxes and RIFF chunks at the edges of their
// formats: the shortest headers each version allows, 64-bit box sizes,
// empty boxes, and sizes that claim more than the file holds (which must
// end the walk, never read past the bytes).

// isoBox is an ISO base media box with a 32-bit size.
func isoBox(typ string, payload ...[]byte) []byte {
	body := bytes.Join(payload, nil)
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(out, typ...), body...)
}

// largeBox is the same box with a 64-bit size (size field 1).
func largeBox(typ string, payload []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, 1)
	out = append(out, typ...)
	out = binary.BigEndian.AppendUint64(out, uint64(16+len(payload)))
	return append(out, payload...)
}

// mvhd0 is the shortest version 0 movie header: version, flags, two times,
// time scale and duration (20 bytes).
func mvhd0(scale, dur uint32) []byte {
	b := make([]byte, 20)
	binary.BigEndian.PutUint32(b[12:], scale)
	binary.BigEndian.PutUint32(b[16:], dur)
	return b
}

// exact gives b a capacity of its length, so that reading past its end
// panics instead of finding leftover bytes.
func exact(b []byte) []byte { return b[:len(b):len(b)] }

func TestMP4HeaderEdges(t *testing.T) {
	ftyp := isoBox("ftyp", []byte("isom\x00\x00\x02\x00isom"))
	mvhd1 := make([]byte, 32) // version 1: 64-bit times
	mvhd1[0] = 1
	binary.BigEndian.PutUint32(mvhd1[20:], 600)
	binary.BigEndian.PutUint64(mvhd1[24:], 1500)

	for _, c := range []struct {
		name string
		file []byte
		want float64 // < 0: no duration
	}{
		{"shortest version 0 header", append(ftyp, isoBox("moov", isoBox("mvhd", mvhd0(1000, 2500)))...), 2.5},
		{"version 0 header one byte short", append(ftyp, isoBox("moov", isoBox("mvhd", mvhd0(1000, 2500)[:19]))...), -1},
		{"shortest version 1 header", append(ftyp, isoBox("moov", isoBox("mvhd", mvhd1))...), 2.5},
		{"empty box before the movie", append(isoBox("free"), isoBox("moov", isoBox("mvhd", mvhd0(10, 35)))...), 3.5},
		{"movie box with a 64-bit size", append(ftyp, largeBox("moov", isoBox("mvhd", mvhd0(1000, 4000)))...), 4},
		{"64-bit size cut short", append(ftyp, []byte("\x00\x00\x00\x01moov\x00\x00")...), -1},
		{"movie box longer than the file", append(ftyp, []byte("\x00\x00\x00\x30moov\x00\x00\x00\x14mvhd")...), -1},
		{"zero time scale", append(ftyp, isoBox("moov", isoBox("mvhd", mvhd0(0, 2500)))...), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MP4Duration(exact(c.file))
			switch {
			case c.want < 0 && ok:
				t.Errorf("duration %v from a file that states none", got)
			case c.want >= 0 && (!ok || math.Abs(got-c.want) > 1e-9):
				t.Errorf("duration %v (%v), want %v", got, ok, c.want)
			}
		})
	}
}

func TestMP4VideoSizeOfBothHeaderVersions(t *testing.T) {
	tkhd := func(version byte, n, w, h int) []byte {
		b := make([]byte, n)
		b[0] = version
		binary.BigEndian.PutUint32(b[n-8:], uint32(w)<<16)
		binary.BigEndian.PutUint32(b[n-4:], uint32(h)<<16)
		return b
	}
	movie := func(headers ...[]byte) []byte {
		var traks [][]byte
		for _, h := range headers {
			traks = append(traks, isoBox("trak", isoBox("tkhd", h)))
		}
		return exact(isoBox("moov", traks...))
	}
	for _, c := range []struct {
		name string
		file []byte
		w, h int // 0: no size
	}{
		{"version 0, 84 bytes", movie(tkhd(0, 84, 640, 360)), 640, 360},
		{"version 1, 96 bytes", movie(tkhd(1, 96, 1280, 720)), 1280, 720},
		{"version 1 cut to 95 bytes", movie(tkhd(1, 95, 1280, 720)), 0, 0},
		{"audio track first, then version 1 video", movie(tkhd(1, 96, 0, 0), tkhd(1, 96, 720, 1280)), 720, 1280},
	} {
		w, h, ok := MP4VideoSize(c.file)
		if c.w == 0 && ok || c.w != 0 && (!ok || w != c.w || h != c.h) {
			t.Errorf("%s: %dx%d (%v), want %dx%d", c.name, w, h, ok, c.w, c.h)
		}
	}
}

// A WAVE_FORMAT_EXTENSIBLE fmt chunk names its real format in the first
// two bytes of its sub-format, at offset 24: a chunk of 26 bytes is the
// shortest that holds them.
func TestWAVExtensibleFormatOfTheShortestChunk(t *testing.T) {
	le := binary.LittleEndian
	fmtBody := make([]byte, 26)
	le.PutUint16(fmtBody[0:], formatExtensible)
	le.PutUint16(fmtBody[2:], 1)     // mono
	le.PutUint32(fmtBody[4:], 8000)  // rate
	le.PutUint32(fmtBody[8:], 16000) // bytes per second
	le.PutUint16(fmtBody[12:], 2)    // block size
	le.PutUint16(fmtBody[14:], 16)   // bits
	le.PutUint16(fmtBody[24:], formatPCM)
	file := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	file = le.AppendUint32(file, 26)
	file = append(file, fmtBody...)
	file = append(file, "data"...)
	file = le.AppendUint32(file, 8000)
	file = append(file, make([]byte, 8000)...)
	if secs, err := WAVDuration(file); err != nil || secs != 0.5 {
		t.Errorf("duration %v, %v; want 0.5 s", secs, err)
	}
}

// WAVDuration's errors say what is missing: a file that is RIFF/WAVE but
// holds no data is not called "not a WAVE file".
func TestWAVDurationSaysWhatIsMissing(t *testing.T) {
	headerOnly := []byte("RIFF\x04\x00\x00\x00WAVE")
	withFmt := wavFile(formatPCM, 1, 8000, 8, 0, nil, nil)
	fmtOnly := withFmt[:12+8+16] // the fmt chunk ends the file
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"RIFF/WAVE header only":   {headerOnly, "wav: no data chunk"},
		"fmt chunk ends the file": {fmtOnly, "wav: no data chunk"},
		"eleven bytes":            {headerOnly[:11], "wav: not a RIFF/WAVE file"},
	} {
		if _, err := WAVDuration(c.file); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// wavFramesURI is an 8 kHz 8-bit mono WAV of exactly frames samples.
func wavFramesURI(frames int) string {
	return "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(wavFile(formatPCM, 1, 8000, 8, frames, nil, nil))
}

// Lengths read from data URIs, at the spec's bounds: music-video audio is
// "10-300 seconds"; a svcq2-pro reference video "at most 8 seconds", two
// videos "of 5 seconds" each, with the 0.05 s a container's rounding may
// add; trending-replicate's video and svcq3-drama's sounds state no
// length at all.
func TestMediaLengthsAtTheirBounds(t *testing.T) {
	const mv = `{"images":["https://e.com/1"]}`
	const r2v = `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`
	runEdgeCases(t, []edgeCase{
		{name: "audio of exactly 10 s", op: "mv", req: mv, set: []any{"audio_url", wavFramesURI(80000)}},
		{name: "audio of exactly 300 s", op: "mv", req: mv, set: []any{"audio_url", wavFramesURI(2400000)}},
		{name: "audio one sample over 300 s", op: "mv", req: mv, set: []any{"audio_url", wavFramesURI(2400001)},
			want: "audio_url: audio is 300.0001 s long; must be 10 to 300 s"},
		{name: "audio one sample under 10 s", op: "mv", req: mv, set: []any{"audio_url", wavFramesURI(79999)},
			want: "audio_url: audio is 9.9999 s long; must be 10 to 300 s"},

		{name: "video of 8 s and rounding", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4URI(8.05)}}},
		{name: "video past 8 s", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4URI(8.06)}},
			want: "videos[0]: video is 8.1 s long; at most 8 s"},
		{name: "two videos of 5 s and rounding", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4URI(5.05), mp4URI(5.05)}}},
		{name: "two videos, the second past 5 s", op: "reference2video", req: r2v, set: []any{"videos", []any{mp4URI(5), mp4URI(5.06)}},
			want: "videos[1]: is 5.1 s long; with two videos each must be at most 5 s"},

		{name: "a long video to replicate", op: "trending-replicate", req: `{}`, set: []any{"video_url", mp4URI(600)}},
		{name: "sounds state no length", op: "reference2video", req: `{"model":"svcq3-drama","prompt":"p","images":["https://e.com/1"]}`,
			set: []any{"sounds", []any{wavURI(3)}}},
	})
}

// The container check reads the first bytes only (the service judges the
// rest): the 12-byte RIFF/AVI header, the 8-byte header of a first box.
func TestVideoContainerHeaders(t *testing.T) {
	const r2v = `{"model":"svcq2-pro","prompt":"p","images":["https://e.com/1"]}`
	uri := func(ct string, b []byte) string {
		return "data:" + ct + ";base64," + base64.StdEncoding.EncodeToString(b)
	}
	avi := append([]byte("RIFF\x2c\x00\x00\x00AVI LIST\x20\x00\x00\x00hdrlavih"), make([]byte, 24)...)
	runEdgeCases(t, []edgeCase{
		{name: "an AVI declared avi", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/avi", avi)}}},
		{name: "an AVI declared x-msvideo", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/x-msvideo", avi)}}},
		{name: "the bare AVI header", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/avi", avi[:12])}}},
		{name: "an AVI header cut short", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/avi", avi[:11])}},
			want: "videos[0]: content is not the video/avi video it is declared as"},
		{name: "an AVI declared mp4", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/mp4", avi)}},
			want: "videos[0]: content is an AVI video declared as video/mp4; declare it data:video/avi;base64,"},
		{name: "a RIFF that is no AVI", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/avi", wavFile(formatPCM, 1, 8000, 8, 10, nil, nil))}},
			want: "content is not the video/avi video"},
		{name: "the bare header of a first box", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/mp4", isoBox("ftyp"))}}},
		{name: "a box header cut short", op: "reference2video", req: r2v, set: []any{"videos", []any{uri("video/mp4", isoBox("ftyp")[:7])}},
			want: "content is not the video/mp4 video"},
	})
}

// "data:" is a data URI (one without a comma, said so), whatever its case;
// "data" is not.
func TestDataSchemeAlone(t *testing.T) {
	for s, want := range map[string]bool{"data:": true, "DATA:": true, "data": false, "dat:": false, "": false} {
		if IsDataURI(s) != want {
			t.Errorf("IsDataURI(%q) = %v", s, !want)
		}
	}
	runEdgeCases(t, []edgeCase{
		{name: "data: alone", op: "img2video", req: `{"model":"svcq3-pro"}`, set: []any{"images", []any{"data:"}},
			want: "images[0]: data URI has no comma before its data"},
	})
	if strings.Contains(Validate("img2video", with(t, `{"model":"svcq3-pro"}`, "images", []any{"data:"})).Error(), "http(s)") {
		t.Error("data: alone is called a bad URL")
	}
}
