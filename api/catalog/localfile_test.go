package catalog

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileToDataURI(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pngHeader := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		media   Media
		prefix  string
		wantErr string
	}{
		{write("a.png", pngHeader), MediaImage, "data:image/png;base64,", ""},
		{write("b.JPG", []byte("\xff\xd8\xff")), MediaImage, "data:image/jpeg;base64,", ""},
		{write("song.m4a", []byte("....ftypM4A ")), MediaAudio, "data:audio/m4a;base64,", ""},
		{write("clip.mov", []byte("....ftypqt  ")), MediaVideo, "data:video/quicktime;base64,", ""},
		{write("noext", pngHeader), MediaImage, "data:image/png;base64,", ""},
		{write("renamed.png", jpg.Bytes()), MediaImage, "data:image/jpeg;base64,", ""},
		{write("c.mp3", []byte("ID3")), MediaImage, "", "looks like audio/mpeg, not an image file"},
		{filepath.Join(dir, "missing.png"), MediaImage, "", "no such file"},
		{dir, MediaImage, "", "is a directory"},
	} {
		got, err := FileToDataURI(c.path, c.media)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.path, err, c.wantErr)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(got, c.prefix) {
			t.Errorf("%s: %q, %v", c.path, clip40(got), err)
			continue
		}
		data, _ := os.ReadFile(c.path)
		if dec, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(got, c.prefix)); string(dec) != string(data) {
			t.Errorf("%s: payload does not round-trip", c.path)
		}
	}
}

func TestIsLocalPath(t *testing.T) {
	for in, want := range map[string]bool{"a.png": true, "./x/y.mp4": true, "/abs/z.wav": true,
		"https://e.com/a.png": false, "data:image/png;base64,AA": false, "DATA:image/png;base64,AA": false, "": false, "s3://bucket/k": false} {
		if IsLocalPath(in) != want {
			t.Errorf("IsLocalPath(%q) = %v", in, !want)
		}
	}
}

func clip40(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// "HTTP body ... at most 20 MB": a file of 20 MB cannot fit in a body with
// anything else, and is refused by its size before it is read; one byte
// less is read.
func TestMediaFileOfTheBodyLimit(t *testing.T) {
	dir := t.TempDir()
	sized := func(name string, n int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil { // sparse: no 20 MB written
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	_, err := ReadMediaFile(sized("at.mp4", MaxBodyBytes), MediaVideo)
	if err == nil || !strings.Contains(err.Error(), "at.mp4 is 20 MB; a request body may not exceed 20 MB") {
		t.Errorf("a file of exactly 20 MB: %v", err)
	}
	fc, err := ReadMediaFile(sized("under.mp4", MaxBodyBytes-1), MediaVideo)
	if err != nil || len(fc.Data) != MaxBodyBytes-1 {
		t.Errorf("a file one byte under 20 MB: %d bytes, %v", len(fc.Data), err)
	}
}
