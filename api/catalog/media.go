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
	"strings"

	"clapper/api"

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

// ParseDataURI decodes data:<type>;base64,<data>. The content type is
// required: the service cannot tell a format otherwise.
func ParseDataURI(s string) (DataURI, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return DataURI{}, errors.New("not a data URI")
	}
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

// InspectImage reads an image's format and size without decoding pixels.
func InspectImage(data []byte) (ImageInfo, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return ImageInfo{}, errors.New("could not be read as png, jpeg or webp")
	}
	return ImageInfo{cfg.Width, cfg.Height, format}, nil
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
	if !strings.HasPrefix(s, "data:") {
		if err := checkURL(s); err != nil {
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
	types := mediaTypes[f.Media]
	if f.ImageFormats != nil {
		types = nil
		for _, t := range f.ImageFormats {
			types = append(types, "image/"+t)
		}
	}
	if !contains(types, d.ContentType) {
		reason := api.ReasonFieldInvalid
		if f.Media == MediaImage {
			reason = api.ReasonImageFormatInvalid
		}
		return bad(reason, "content type %s is not accepted; use %s", d.ContentType, strings.Join(types, ", "))
	}
	max := f.MaxDecoded
	if max == 0 {
		max = defaultMaxDecoded[f.Media]
	}
	if int64(len(d.Data)) >= max {
		return bad(api.ReasonFieldInvalid, "decoded size %s must be under %s", byteSize(int64(len(d.Data))), byteSize(max))
	}
	switch f.Media {
	case MediaImage:
		info, err := InspectImage(d.Data)
		if err != nil {
			return bad(api.ReasonImageFormatInvalid, "%v", err)
		}
		return checkImageShape(f, label, info)
	case MediaVideo:
		if secs, ok := MP4Duration(d.Data); ok && f.MaxSeconds > 0 && secs > f.MaxSeconds+0.05 {
			return bad(api.ReasonFieldInvalid, "video is %.1f s long; at most %s s", secs, trimFloat(f.MaxSeconds))
		}
	case MediaAudio:
		if secs, err := WAVDuration(d.Data); err == nil && f.MaxSeconds > 0 && (secs < f.MinSeconds || secs > f.MaxSeconds) {
			return bad(api.ReasonFieldInvalid, "audio is %.1f s long; must be %s to %s s", secs, trimFloat(f.MinSeconds), trimFloat(f.MaxSeconds))
		}
	}
	return nil
}

func checkImageShape(f Field, label string, info ImageInfo) []FieldError {
	bad := func(format string, args ...any) []FieldError {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, label + ": " + fmt.Sprintf(format, args...)}}
	}
	w, h := info.Width, info.Height
	if w < 128 || h < 128 {
		return bad("image is %dx%d; at least 128x128 pixels", w, h)
	}
	if 4*h < w || 4*w < h {
		return bad("image is %dx%d; its aspect ratio must lie within 1:4 to 4:1", w, h)
	}
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
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

// findBox returns the payload of the first top-level box of the given type.
func findBox(b []byte, typ string) ([]byte, bool) {
	for p := 0; p+8 <= len(b); {
		size := int(binary.BigEndian.Uint32(b[p : p+4]))
		hdr := 8
		if size == 1 && p+16 <= len(b) {
			size = int(binary.BigEndian.Uint64(b[p+8 : p+16]))
			hdr = 16
		} else if size == 0 {
			size = len(b) - p
		}
		if size < hdr || p+size > len(b) {
			return nil, false
		}
		if string(b[p+4:p+8]) == typ {
			return b[p+hdr : p+size], true
		}
		p += size
	}
	return nil, false
}
