package catalog

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"clapper/api"
)

// extContentTypes maps file extensions to the content types the service names;
// the standard mime table lacks some (m4a) and differs by system.
var extContentTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".bmp": "image/bmp",
	".mp4": "video/mp4", ".mov": "video/quicktime", ".avi": "video/x-msvideo",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".m4a": "audio/m4a", ".aac": "audio/aac",
}

// IsLocalPath reports whether a media value names a file rather than a URL,
// a data URI or an upload URI.
func IsLocalPath(v string) bool {
	if v == "" || IsDataURI(v) || isUploadURI(v) || strings.Contains(v, "://") {
		return false
	}
	return true
}

// FileToDataURI reads a local file and encodes it as a data URI with the
// content type the service expects for its kind of media.
func FileToDataURI(path string, media Media) (string, error) {
	fc, err := ReadMediaFile(path, media)
	if err != nil {
		return "", err
	}
	ct, err := fc.TypeAs(path, media)
	if err != nil {
		return "", err
	}
	return "data:" + ct + ";base64," + base64.StdEncoding.EncodeToString(fc.Data), nil
}

// FileContent is what a file holds whatever field names it: its bytes, the
// content type its name (or, without a known name, its bytes) gives, and
// the image format its bytes have, if any.
type FileContent struct {
	Data        []byte
	ContentType string
	ImageFormat string // png, jpeg, webp or bmp; "" when the bytes are no image
}

// ReadMediaFile reads a file for a field taking media (named in the
// messages of a file that cannot be read at all).
func ReadMediaFile(path string, media Media) (FileContent, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileContent{}, fmt.Errorf("%s: no such file (give a path, an http(s) URL or a data URI)", path)
	}
	if st.IsDir() {
		return FileContent{}, fmt.Errorf("%s is a directory, not %s %s file", path, indefinite(media.String()), media)
	}
	if st.Mode().IsRegular() && st.Size() >= MaxBodyBytes {
		return FileContent{}, fmt.Errorf("%s is %d MB; a request body may not exceed 20 MB", path, st.Size()>>20)
	}
	data, err := api.ReadRegularFile(path, MaxBodyBytes-1)
	if err != nil {
		return FileContent{}, err
	}
	fc := FileContent{Data: data, ContentType: extContentTypes[strings.ToLower(filepath.Ext(path))]}
	if fc.ContentType == "" {
		fc.ContentType, _, _ = mime.ParseMediaType(mime.TypeByExtension(filepath.Ext(path)))
	}
	if fc.ContentType == "" {
		fc.ContentType, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	if info, err := InspectImage(data); err == nil {
		fc.ImageFormat = info.Format
	}
	return fc, nil
}

// TypeAs is the content type the file is declared with in a field taking
// media, or why that field cannot take it.
func (fc FileContent) TypeAs(path string, media Media) (string, error) {
	ct := fc.ContentType
	// The service and the catalog read an image's bytes, not its name: a
	// JPEG saved as .png is declared image/jpeg.
	if fc.ImageFormat != "" && media == MediaImage {
		ct = "image/" + fc.ImageFormat
	}
	if want := media.String(); want != "" && !strings.HasPrefix(ct, want+"/") {
		return "", fmt.Errorf("%s looks like %s, not %s %s file", path, ct, indefinite(want), want)
	}
	return ct, nil
}

func indefinite(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// InlineFiles turns the local paths in a request's media fields (subjects'
// images and videos included) into data URIs, as every front end accepts
// them; relative paths are read from dir. Values that are URLs or data URIs
// stay as they are; fields no table names are left to Validate.
func InlineFiles(op api.Operation, body map[string]any, dir string) error {
	return InlineFilesWithin(op, body, dir, nil)
}

// InlineFilesWithin is InlineFiles that reads a file only when allow (nil:
// any) accepts its path, made absolute, before anything looks at it.
func InlineFilesWithin(op api.Operation, body map[string]any, dir string, allow func(path string) error) error {
	for name, v := range body {
		if err := inlineValue(op, name, &v, dir, allow); err != nil {
			return err
		}
		body[name] = v
	}
	return nil
}

// InlineValue is InlineFiles for one field's value.
func InlineValue(op api.Operation, name string, v *any, dir string) error {
	return inlineValue(op, name, v, dir, nil)
}

func inlineValue(op api.Operation, name string, v *any, dir string, allow func(string) error) error {
	f, ok := FieldOf(op, name)
	if !ok {
		return nil // validation reports unknown fields
	}
	switch f.Kind {
	case KindMedia:
		return inlineString(name, f.Media, v, dir, allow)
	case KindMediaList:
		if _, single := (*v).(string); single {
			return inlineString(name, f.Media, v, dir, allow)
		}
		list, _ := (*v).([]any)
		for i := range list {
			if err := inlineString(fmt.Sprintf("%s[%d]", name, i), f.Media, &list[i], dir, allow); err != nil {
				return err
			}
		}
	case KindKeyFrames:
		list, _ := (*v).([]any)
		for i, it := range list {
			kf, _ := it.(map[string]any)
			if img, ok := kf["key_image"]; ok {
				if err := inlineString(fmt.Sprintf("%s[%d].key_image", name, i), MediaImage, &img, dir, allow); err != nil {
					return err
				}
				kf["key_image"] = img
			}
		}
	case KindSubjects:
		list, _ := (*v).([]any)
		for i, it := range list {
			subj, _ := it.(map[string]any)
			for _, k := range []string{"images", "videos"} {
				media := MediaImage
				if k == "videos" {
					media = MediaVideo
				}
				items, _ := subj[k].([]any)
				for j := range items {
					if err := inlineString(fmt.Sprintf("subjects[%d].%s[%d]", i, k, j), media, &items[j], dir, allow); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func inlineString(label string, media Media, v *any, dir string, allow func(string) error) error {
	s, ok := (*v).(string)
	if !ok || !IsLocalPath(s) {
		return nil
	}
	path := s
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if allow != nil {
		abs, err := filepath.Abs(path)
		if err == nil {
			err = allow(abs)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	uri, err := FileToDataURI(path, media)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	*v = uri
	return nil
}
