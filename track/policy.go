package track

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"

	"clapper/api"
)

// The download policy: one place decides what a saved result may be called
// and how large it may grow, for every fetch of a result (task results,
// compositions, previews).
//
// A saved file's extension comes from an allow-list per kind of result: the
// server's content type, else its URL's extension, when the kind allows it;
// else from the content itself (the first 512 bytes, sniffed as
// http.DetectContentType does), when that is a media type of any kind; else
// ".bin". The lists hold media types only, so nothing executable (.exe, .hta,
// .sh, .html, .bat, .cmd, .ps1, .js, .vbs, .scr, .app, .desktop…) is ever
// written, whatever the server names or serves.
//
// Results are fetched as sent, never decompressed on the way (Accept-Encoding:
// identity, and the transport adds no gzip of its own): a 0.5 MB gzip body
// never inflates to 500 MB on the disk. A server that compresses anyway is
// refused, naming the encoding. Each kind has a size cap, checked against
// Content-Length before the first byte and enforced while the bytes arrive.

// allowedExt are the extensions a result of each kind may be saved with,
// the usual one of each content type first.
var allowedExt = map[string][]string{
	"video": {"mp4", "mov", "webm", "m4v", "mkv", "avi"},
	"image": {"png", "jpg", "jpeg", "webp", "gif"},
	"audio": {"wav", "mp3", "m4a", "aac", "ogg", "flac"},
}

// mediaExt is the usual extension of each content type; the system's mime
// table would offer rarities (.jfif for JPEG).
var mediaExt = map[string]string{
	"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif",
	"video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm", "video/avi": "avi", "video/x-msvideo": "avi",
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp4": "m4a",
	"audio/aac": "aac", "audio/ogg": "ogg", "application/ogg": "ogg", "audio/flac": "flac",
}

// MaxBytes caps a saved result of each kind. The service's results are far
// smaller (a 15-second 4K video is some hundreds of MB); the caps stop a
// hostile or broken server from filling the disk.
var MaxBytes = map[string]int64{
	"video": 4 << 30,
	"image": 100 << 20,
	"audio": 1 << 30,
}

// MaxPreviewBytes caps a picture fetched only to be shown (a cover, a
// scene's first frame).
const MaxPreviewBytes = 32 << 20

// allowed reports an extension the kind may be saved with.
func allowed(media, ext string) bool { return slices.Contains(allowedExt[media], ext) }

// anyMedia reports an extension of any kind of result.
func anyMedia(ext string) bool {
	for media := range allowedExt {
		if allowed(media, ext) {
			return true
		}
	}
	return false
}

// AllowedToOpen reports a file name whose extension is one clapper saves
// results with: only such a file is handed to the desktop's opener.
func AllowedToOpen(name string) bool {
	return anyMedia(strings.ToLower(strings.TrimPrefix(path.Ext(name), ".")))
}

// urlExt is the extension of a URL's path, lower case, without the dot.
func urlExt(rawURL string) string {
	u := rawURL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.ToLower(strings.TrimPrefix(path.Ext(u), "."))
}

// chooseExt applies the policy: see the comment at the top of this file.
func chooseExt(media, rawURL, contentType string, head []byte) string {
	if ct, _, err := mime.ParseMediaType(contentType); err == nil && allowed(media, mediaExt[ct]) {
		return mediaExt[ct]
	}
	if ext := urlExt(rawURL); allowed(media, ext) {
		return ext
	}
	if len(head) > 0 {
		ct, _, _ := mime.ParseMediaType(http.DetectContentType(head))
		if ext := mediaExt[ct]; anyMedia(ext) {
			return ext
		}
	}
	return "bin"
}

// errTooLarge is a result over its kind's cap.
var errTooLarge = errors.New("download: the result is larger than clapper saves")

func tooLarge(media string, n, limit int64) error {
	return fmt.Errorf("%w (%s of %s at least; the cap is %s)", errTooLarge, api.ByteSize(n), media, api.ByteSize(limit))
}

// errEncoded is a result the server compressed though asked not to.
var errEncoded = errors.New("download: the server sent the result compressed")

// finalName is base with the extension the policy chooses; an existing
// file of that name is never overwritten (base (2).ext, base (3).ext…).
func finalName(root *os.Root, base, ext string) string {
	candidate := base + "." + ext
	for i := 2; ; i++ {
		if _, err := root.Stat(candidate); errors.Is(err, os.ErrNotExist) {
			return candidate
		}
		candidate = fmt.Sprintf("%s (%d).%s", base, i, ext)
	}
}

// sniff reads the first bytes of a file for DetectContentType.
func sniff(root *os.Root, name string) []byte {
	f, err := root.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return head[:n]
}
