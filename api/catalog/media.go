package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // registers decoders for DecodeConfig
	_ "image/png"
	"strconv"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/webp"
)

// Content types a data URI may declare, per media. The spec's own example
// for sounds is data:video/mp3, so audio accepts that spelling too.
var mediaTypes = map[Media][]string{
	MediaImage: {"image/png", "image/jpeg", "image/jpg", "image/webp"},
	MediaVideo: {"video/mp4", "video/avi", "video/x-msvideo", "video/mov", "video/quicktime"},
	MediaAudio: {"audio/mpeg", "audio/mp3", "audio/wav", "audio/x-wav", "audio/wave", "audio/m4a", "audio/x-m4a", "audio/mp4", "audio/aac", "video/mp3"},
}

var defaultMaxDecoded = map[Media]int64{MediaImage: maxImageBytes, MediaVideo: maxVideoBytes, MediaAudio: maxAudioBytes}

// DataURI is a decoded data: URI.
type DataURI struct {
	ContentType string
	Data        []byte
}

// IsDataURI reports whether s uses the data: scheme, which like every URI
// scheme is case-insensitive (DATA: and Data: too).
func IsDataURI(s string) bool {
	return len(s) >= 5 && strings.EqualFold(s[:5], "data:")
}

// ParseDataURI decodes data:<type>;base64,<data>. The content type is
// required: the service cannot tell a format otherwise. A large data URI
// decoded lately is answered from memory (decoded.get): a form checks its
// request after every key, and decoding a 15 MB image each time cost tens
// of milliseconds and as many megabytes. The Data answered is shared and
// must not be changed.
func ParseDataURI(s string) (DataURI, error) {
	if len(s) < memoMin {
		return parseDataURI(s)
	}
	return decoded.get(s)
}

func parseDataURI(s string) (DataURI, error) {
	if !IsDataURI(s) {
		return DataURI{}, errors.New("not a data URI")
	}
	rest := s[5:]
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return DataURI{}, errors.New("data URI has no comma before its data")
	}
	ct, params, _ := strings.Cut(meta, ";")
	if ct == "" || !strings.Contains(ct, "/") {
		return DataURI{}, errors.New("data URI must state its content type, as data:image/png;base64,")
	}
	if !strings.EqualFold(params, "base64") {
		return DataURI{}, errors.New("data URI must be base64, as data:image/png;base64,")
	}
	dec, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		// Unpadded base64 is common from other encoders; accept it.
		if dec, err = base64.RawStdEncoding.DecodeString(data); err != nil {
			return DataURI{}, fmt.Errorf("data URI is not valid base64")
		}
	}
	return DataURI{ContentType: strings.ToLower(ct), Data: dec}, nil
}

// ImageInfo is what the rules need of an image.
type ImageInfo struct {
	Width, Height int
	Format        string
}

// InspectImage reads an image's format (png, jpeg, webp or bmp) and size
// without decoding pixels.
func InspectImage(data []byte) (ImageInfo, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return ImageInfo{}, errors.New("not a png, jpeg, webp or bmp image")
	}
	return ImageInfo{cfg.Width, cfg.Height, format}, nil
}

// imageFormatOf is the format each accepted image content type declares.
var imageFormatOf = map[string]string{
	"image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/webp": "webp", "image/bmp": "bmp",
}

// contentTypes lists the content types a data URI of this field may declare.
func (f Field) contentTypes() []string {
	if f.ImageFormats == nil {
		return mediaTypes[f.Media]
	}
	types := make([]string, len(f.ImageFormats))
	for i, t := range f.ImageFormats {
		types[i] = "image/" + t
	}
	return types
}

// checkMedia checks one media value: an http(s) URL (accepted as given,
// the service fetches it) or a data URI decoded and checked fully.
func checkMedia(f Field, label, s string) []FieldError {
	bad := func(reason, format string, args ...any) []FieldError {
		return []FieldError{{f.Name, reason, label + ": " + fmt.Sprintf(format, args...)}}
	}
	if strings.TrimSpace(s) == "" {
		return bad(api.ReasonFieldLacking, "empty; give a URL or a data URI")
	}
	if isUploadURI(s) {
		return checkUpload(f, label, s)
	}
	if !IsDataURI(s) {
		if err := checkURL(s); err != nil {
			if f.Media == MediaImage {
				return bad(api.ReasonFieldInvalid, "must be an http(s) URL, an ssupload: URI or a data:image/...;base64, URI")
			}
			return bad(api.ReasonFieldInvalid, "must be an http(s) URL or a data:%s/...;base64, URI", f.Media)
		}
		return nil
	}
	if f.Kind == KindURL {
		return bad(api.ReasonFieldInvalid, "must be an http(s) URL the service can fetch, not a data URI")
	}
	d, err := ParseDataURI(s)
	if err != nil {
		return bad(api.ReasonFieldInvalid, "%v", err)
	}
	types := f.contentTypes()
	if !contains(types, d.ContentType) {
		reason := api.ReasonFieldInvalid
		if f.Media == MediaImage {
			reason = api.ReasonImageFormatInvalid
		}
		return bad(reason, "content type %s is not accepted; use %s", textutil.Clip(d.ContentType, 40), strings.Join(types, ", "))
	}
	if msg := f.sizeProblem(int64(len(d.Data))); msg != "" {
		return bad(api.ReasonFieldInvalid, "%s", msg)
	}
	switch f.Media {
	case MediaImage:
		info, err := InspectImage(d.Data)
		if err != nil {
			return bad(api.ReasonImageFormatInvalid, "content is %v", err)
		}
		if imageFormatOf[d.ContentType] != info.Format {
			if t := "image/" + info.Format; contains(types, t) {
				return bad(api.ReasonImageFormatInvalid, "content is a %s image declared as %s; declare it data:%s;base64,", info.Format, d.ContentType, t)
			}
			return bad(api.ReasonImageFormatInvalid, "content is a %s image declared as %s; convert it to one of %s", info.Format, d.ContentType, strings.Join(types, ", "))
		}
		return checkImageShape(f, label, info)
	case MediaVideo:
		if msg := videoContentProblem(d); msg != "" {
			return bad(api.ReasonFieldInvalid, "%s", msg)
		}
		if secs, ok := MP4Duration(d.Data); ok && f.MaxSeconds > 0 && secs > f.MaxSeconds+0.05 {
			return bad(api.ReasonFieldInvalid, "video is %s s long; at most %s s", outside(secs, 0, f.MaxSeconds+0.05), trimFloat(f.MaxSeconds))
		}
		if w, h, ok := MP4VideoSize(d.Data); ok && f.VideoShape {
			if msg := shapeProblem("video", w, h); msg != "" {
				return bad(api.ReasonFieldInvalid, "%s", msg)
			}
		}
	case MediaAudio:
		if info, err := InspectImage(d.Data); err == nil {
			return bad(api.ReasonFieldInvalid, "content is a %s image, not audio", info.Format)
		}
		if secs, err := WAVDuration(d.Data); err == nil && f.MaxSeconds > 0 && (secs < f.MinSeconds || secs > f.MaxSeconds) {
			return bad(api.ReasonFieldInvalid, "audio is %s s long; must be %s to %s s", outside(secs, f.MinSeconds, f.MaxSeconds), trimFloat(f.MinSeconds), trimFloat(f.MaxSeconds))
		}
	}
	return nil
}

// sizeProblem checks a data URI's decoded length against the field's bound:
// "under N MB" excludes N, "at most N MB" (DecodedAtMost) includes it.
func (f Field) sizeProblem(n int64) string {
	limit := f.MaxDecoded
	if limit == 0 {
		limit = defaultMaxDecoded[f.Media]
	}
	if n < limit || (f.DecodedAtMost && n == limit) {
		return ""
	}
	got, want := api.ByteSize(n), api.ByteSize(limit)
	if got == want {
		// Rounded alike, the two would read as no reason at all.
		got, want = textutil.Plural(int(n), "byte"), fmt.Sprintf("%s (%s)", want, textutil.Plural(int(limit), "byte"))
	}
	if f.DecodedAtMost {
		return fmt.Sprintf("decoded size is %s; at most %s", got, want)
	}
	return fmt.Sprintf("decoded size is %s; must be under %s", got, want)
}

// videoContentProblem says when a video data URI's bytes are not the
// container its content type declares: MP4 and QuickTime files are ISO
// boxes, AVI files RIFF.
func videoContentProblem(d DataURI) string {
	isAVI := len(d.Data) >= 12 && string(d.Data[0:4]) == "RIFF" && string(d.Data[8:12]) == "AVI "
	isBoxes := len(d.Data) >= 8 && isoTopBox[string(d.Data[4:8])]
	wantAVI := d.ContentType == "video/avi" || d.ContentType == "video/x-msvideo"
	switch {
	case wantAVI && isAVI, !wantAVI && isBoxes:
		return ""
	case wantAVI && isBoxes:
		return fmt.Sprintf("content is an MP4 or MOV video declared as %s; declare it data:video/mp4;base64,", d.ContentType)
	case !wantAVI && isAVI:
		return fmt.Sprintf("content is an AVI video declared as %s; declare it data:video/avi;base64,", d.ContentType)
	}
	if info, err := InspectImage(d.Data); err == nil {
		return fmt.Sprintf("content is a %s image, not a video", info.Format)
	}
	return fmt.Sprintf("content is not the %s video it is declared as", d.ContentType)
}

// isoTopBox are the box types an MP4 or QuickTime file starts with.
var isoTopBox = map[string]bool{"ftyp": true, "moov": true, "mdat": true, "free": true, "skip": true, "wide": true, "pnot": true}

func checkImageShape(f Field, label string, info ImageInfo) []FieldError {
	if msg := shapeProblem("image", info.Width, info.Height); msg != "" {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, label + ": " + msg}}
	}
	return nil
}

// shapeProblem applies the shared frame rule of images and reference
// videos: at least 128x128, aspect ratio within 1:4 to 4:1.
func shapeProblem(what string, w, h int) string {
	if w < 128 || h < 128 {
		return fmt.Sprintf("%s is %dx%d; at least 128x128 pixels", what, w, h)
	}
	if 4*h < w || 4*w < h {
		return fmt.Sprintf("%s is %dx%d; its aspect ratio must lie within 1:4 to 4:1", what, w, h)
	}
	return ""
}

// outside formats v, known to lie outside [lo, hi], with just enough
// decimals that it does not read as inside ("0.7999", not "0.80").
func outside(v, lo, hi float64) string {
	for p := 1; p < 17; p++ {
		s := strconv.FormatFloat(v, 'f', p, 64)
		if x, _ := strconv.ParseFloat(s, 64); x < lo || x > hi {
			return s
		}
	}
	return trimFloat(v)
}

// WAV format tags whose data chunk is plain frames, so that its length and
// the block size give the duration exactly.
const (
	formatPCM        = 1
	formatFloat      = 3
	formatExtensible = 0xFFFE
)

// WAVDuration returns the length in seconds of a RIFF/WAVE file holding PCM
// or float samples at any rate, channel count and sample size.
func WAVDuration(b []byte) (float64, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, errors.New("wav: not a RIFF/WAVE file")
	}
	le := binary.LittleEndian
	var rate, align uint32
	haveFmt := false
	for rest := b[12:]; len(rest) >= 8; {
		id, size := string(rest[0:4]), uint64(le.Uint32(rest[4:8]))
		body := rest[8:]
		switch id {
		case "fmt ":
			if size < 16 || uint64(len(body)) < size {
				return 0, errors.New("wav: fmt chunk too short")
			}
			format := le.Uint16(body[0:])
			if format == formatExtensible && size >= 26 {
				// The real format is the first two bytes of the sub-format GUID.
				format = le.Uint16(body[24:])
			}
			if format != formatPCM && format != formatFloat {
				return 0, fmt.Errorf("wav: format tag %#x is not PCM", format)
			}
			rate, align = le.Uint32(body[4:]), uint32(le.Uint16(body[12:]))
			if rate == 0 || align == 0 {
				return 0, errors.New("wav: zero sample rate or block size")
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return 0, errors.New("wav: data chunk before fmt chunk")
			}
			// Streaming writers leave the size as a placeholder (0xFFFFFFFF,
			// or too large); the bytes present are then the truth.
			size = min(size, uint64(len(body)))
			frames := size / uint64(align)
			return float64(frames) / float64(rate), nil
		}
		// Chunks are padded to an even length.
		next := size + size&1
		if uint64(len(body)) < next {
			break
		}
		rest = body[next:]
	}
	return 0, errors.New("wav: no data chunk")
}

// MP4Duration reads the movie length from an MP4/MOV moov/mvhd box; ok is
// false when the file is not one or the header is unreadable.
func MP4Duration(b []byte) (float64, bool) {
	moov, ok := findBox(b, "moov")
	if !ok {
		return 0, false
	}
	mvhd, ok := findBox(moov, "mvhd")
	if !ok || len(mvhd) < 20 {
		return 0, false
	}
	if mvhd[0] == 1 { // version 1: 64-bit times
		if len(mvhd) < 32 {
			return 0, false
		}
		scale := binary.BigEndian.Uint32(mvhd[20:24])
		dur := binary.BigEndian.Uint64(mvhd[24:32])
		if scale == 0 {
			return 0, false
		}
		return float64(dur) / float64(scale), true
	}
	scale := binary.BigEndian.Uint32(mvhd[12:16])
	dur := binary.BigEndian.Uint32(mvhd[16:20])
	if scale == 0 {
		return 0, false
	}
	return float64(dur) / float64(scale), true
}

// MP4VideoSize reads the frame size of the first track with one (audio
// tracks have none) from its moov/trak/tkhd box; ok is false when the file
// states none.
func MP4VideoSize(b []byte) (w, h int, ok bool) {
	moov, found := findBox(b, "moov")
	if !found {
		return 0, 0, false
	}
	eachBox(moov, func(typ string, trak []byte) bool {
		if typ != "trak" {
			return true
		}
		tkhd, found := findBox(trak, "tkhd")
		// Width and height are the last 8 bytes, 16.16 fixed point, of a
		// version 0 (84 bytes) or version 1 (96 bytes) header.
		if !found || len(tkhd) < 84 || (tkhd[0] == 1 && len(tkhd) < 96) {
			return true
		}
		end := 84
		if tkhd[0] == 1 {
			end = 96
		}
		tw := int(binary.BigEndian.Uint32(tkhd[end-8:end-4]) >> 16)
		th := int(binary.BigEndian.Uint32(tkhd[end-4:end]) >> 16)
		if tw == 0 || th == 0 {
			return true
		}
		w, h, ok = tw, th, true
		return false
	})
	return w, h, ok
}

// findBox returns the payload of the first top-level box of the given type.
func findBox(b []byte, typ string) (payload []byte, ok bool) {
	eachBox(b, func(t string, p []byte) bool {
		if t == typ {
			payload, ok = p, true
			return false
		}
		return true
	})
	return payload, ok
}

// eachBox calls fn with the type and payload of each top-level box in
// turn while fn returns true, stopping at the first malformed box.
func eachBox(b []byte, fn func(typ string, payload []byte) bool) {
	for p := 0; p+8 <= len(b); {
		size := uint64(binary.BigEndian.Uint32(b[p : p+4]))
		hdr := uint64(8)
		if size == 1 && p+16 <= len(b) {
			size = binary.BigEndian.Uint64(b[p+8 : p+16])
			hdr = 16
		} else if size == 0 {
			size = uint64(len(b) - p)
		}
		if size < hdr || size > uint64(len(b)-p) {
			return
		}
		if !fn(string(b[p+4:p+8]), b[p+int(hdr):p+int(size)]) {
			return
		}
		p += int(size)
	}
}
