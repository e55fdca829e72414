// Package forms turns the catalog into input: huh forms generated from the
// rules of each operation and model, and the conversion of local files into
// the data URIs the service accepts.
package forms

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
)

// contentTypes maps file extensions to the content types the service names;
// the standard mime table lacks some (m4a) and differs by system.
var contentTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".bmp": "image/bmp",
	".mp4": "video/mp4", ".mov": "video/quicktime", ".avi": "video/x-msvideo",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".m4a": "audio/m4a", ".aac": "audio/aac",
}

// IsLocalPath reports whether a media value names a file rather than a URL
// or a data URI.
func IsLocalPath(v string) bool {
	if v == "" || catalog.IsDataURI(v) || strings.Contains(v, "://") {
		return false
	}
	return true
}

// FileToDataURI reads a local file and encodes it as a data URI with the
// content type the service expects for its kind of media.
func FileToDataURI(path string, media catalog.Media) (string, error) {
	fc, err := readMediaFile(path, media)
	if err != nil {
		return "", err
	}
	ct, err := fc.typeAs(path, media)
	if err != nil {
		return "", err
	}
	return "data:" + ct + ";base64," + base64.StdEncoding.EncodeToString(fc.data), nil
}

// fileContent is what a file holds whatever field names it: its bytes, the
// content type its name (or, without a known name, its bytes) gives, and
// the image format its bytes have, if any.
type fileContent struct {
	data  []byte
	ct    string
	image string
}

// readMediaFile reads a file for a field taking media (named in the
// messages of a file that cannot be read at all).
func readMediaFile(path string, media catalog.Media) (fileContent, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileContent{}, fmt.Errorf("%s: no such file (give a path, an http(s) URL or a data URI)", path)
	}
	if st.IsDir() {
		return fileContent{}, fmt.Errorf("%s is a directory, not %s %s file", path, article(media.String()), media)
	}
	if st.Mode().IsRegular() && st.Size() >= catalog.MaxBodyBytes {
		return fileContent{}, fmt.Errorf("%s is %d MB; a request body may not exceed 20 MB", path, st.Size()>>20)
	}
	data, err := api.ReadRegularFile(path, catalog.MaxBodyBytes-1)
	if err != nil {
		return fileContent{}, err
	}
	fc := fileContent{data: data, ct: contentTypes[strings.ToLower(filepath.Ext(path))]}
	if fc.ct == "" {
		fc.ct, _, _ = mime.ParseMediaType(mime.TypeByExtension(filepath.Ext(path)))
	}
	if fc.ct == "" {
		fc.ct, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	if info, err := catalog.InspectImage(data); err == nil {
		fc.image = info.Format
	}
	return fc, nil
}

// typeAs is the content type the file is declared with in a field taking
// media, or why that field cannot take it.
func (fc fileContent) typeAs(path string, media catalog.Media) (string, error) {
	ct := fc.ct
	// The service and the catalog read an image's bytes, not its name: a
	// JPEG saved as .png is declared image/jpeg.
	if fc.image != "" && media == catalog.MediaImage {
		ct = "image/" + fc.image
	}
	if want := media.String(); want != "" && !strings.HasPrefix(ct, want+"/") {
		return "", fmt.Errorf("%s looks like %s, not %s %s file", path, ct, article(want), want)
	}
	return ct, nil
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
