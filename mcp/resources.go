package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api/catalog"
	"clapper/record"
)

// Resource URIs: a task (its state, request and results, as JSON; it can
// be subscribed to), and a saved file of its results (an image, video or
// audio; a video's cover; a watermarked copy).
const (
	taskTemplate        = "clapper://task/{task_id}"
	resultTemplate      = "clapper://result/{task_id}/{index}"
	coverTemplate       = "clapper://cover/{task_id}/{index}"
	watermarkedTemplate = "clapper://watermarked/{task_id}/{index}"
)

var resourceKinds = map[string]record.URLKind{"result": record.KindURL, "cover": record.KindCover, "watermarked": record.KindWatermarked}

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "task", Title: "A task", URITemplate: taskTemplate, MIMEType: "application/json",
		Description: "A task as get_task answers it (state, progress, request, result URLs, saved files), by service id or #local id. Subscribe to be told each time it changes."}, s.readTask)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "result", Title: "A saved result", URITemplate: resultTemplate,
		Description: "An image, video or audio a task made, once download_results saved it (index from 0); past the size bound, open the file download_results names."}, s.readFile)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "cover", Title: "A video's saved cover", URITemplate: coverTemplate, MIMEType: "image/*",
		Description: "The cover image of a video result, once download_results saved it (index from 0)."}, s.readFile)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "watermarked", Title: "A saved watermarked copy", URITemplate: watermarkedTemplate,
		Description: "The watermarked copy of a result, once download_results saved it (index from 0)."}, s.readFile)
}

// taskURI is a task's resource.
func taskURI(taskID string) string { return "clapper://task/" + url.PathEscape(taskID) }

func resourceURI(d record.Download) string {
	kind := "result"
	for k, v := range resourceKinds {
		if v == d.Kind {
			kind = k
		}
	}
	return fmt.Sprintf("clapper://%s/%s/%d", kind, url.PathEscape(d.TaskID), d.Index)
}

// fileLink is a saved file as a resource link, with its type and size: a
// clapper:// resource a client can read when it is within the bound, else
// a file:// link to open (never inlined).
func (s *Server) fileLink(d record.Download) *sdk.ResourceLink {
	l := &sdk.ResourceLink{URI: resourceURI(d), Name: filepath.Base(d.Path), MIMEType: mediaType(d.Path)}
	if d.Bytes > 0 {
		size := d.Bytes
		l.Size = &size
	}
	if d.Bytes > s.opts.MaxResourceBytes {
		l.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(d.Path)}).String()
		l.Description = fmt.Sprintf("%.1f MB, over the %.1f MB a resource may be: open the file", float64(d.Bytes)/(1<<20), float64(s.opts.MaxResourceBytes)/(1<<20))
	}
	return l
}

// mediaTypes are the types of the files clapper saves results as, by
// extension (the download policy allows no others).
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif",
	".mp4": "video/mp4", ".m4v": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm", ".mkv": "video/x-matroska", ".avi": "video/x-msvideo",
	".wav": "audio/wav", ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".ogg": "audio/ogg", ".flac": "audio/flac",
}

// mediaType is a saved file's type by its name, "" for anything else.
func mediaType(p string) string { return mediaTypes[strings.ToLower(filepath.Ext(p))] }

func (s *Server) readTask(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "clapper://task/")
	if !ok || id == "" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	id, err := url.PathUnescape(id)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	t, err := s.task(ctx, id)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	out := taskResource{taskOut: s.taskOut(ctx, t, true), Request: json.RawMessage(t.Request)}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// taskResource is a task as its resource holds it: get_task's answer and
// the request as it was sent.
type taskResource struct {
	taskOut
	Request json.RawMessage `json:"request,omitempty"`
}

// readFile serves a saved result, bounded in size, and only when its bytes
// are the media its name says: a resource never hands out anything else.
func (s *Server) readFile(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "clapper" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	kind, ok := resourceKinds[u.Host]
	parts := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if !ok || len(parts) != 2 {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	taskID, err := url.PathUnescape(parts[0])
	index, ierr := strconv.Atoi(parts[1])
	if err != nil || ierr != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	dls, err := s.studio.Record().Downloads(ctx, taskID)
	if err != nil {
		return nil, err
	}
	for _, d := range dls {
		if d.Kind != kind || d.Index != index {
			continue
		}
		if d.Status != record.DownloadDone {
			return nil, fmt.Errorf("%s is not saved (%s): call download_results first", uri, d.Status)
		}
		return s.fileContents(uri, d.Path)
	}
	return nil, sdk.ResourceNotFoundError(uri)
}

func (s *Server) fileContents(uri, path string) (*sdk.ReadResourceResult, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: the saved file is gone (%s); download_results saves it again", uri, path)
	}
	if st.Size() > s.opts.MaxResourceBytes {
		return nil, fmt.Errorf("%s is %.1f MB, over the %.1f MB a resource may be; open the file instead: %s",
			uri, float64(st.Size())/(1<<20), float64(s.opts.MaxResourceBytes)/(1<<20), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	typ, ok := contentType(path, data)
	if !ok {
		return nil, fmt.Errorf("%s: the saved file is not the %s its name says", uri, mediaType(path))
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: typ, Blob: data}}}, nil
}

// contentType is the type of a saved file whose bytes are the kind of
// media its name says (image, video or audio), else false.
func contentType(path string, data []byte) (string, bool) {
	named := mediaType(path)
	kind, _, _ := strings.Cut(named, "/")
	switch kind {
	case "image":
		info, err := catalog.InspectImage(data)
		return "image/" + info.Format, err == nil
	case "video", "audio":
		sniffed := http.DetectContentType(data)
		// QuickTime and MP4 share the ISO box layout DetectContentType
		// does not name for .mov.
		isoBox := len(data) > 12 && bytes.Equal(data[4:8], []byte("ftyp"))
		if strings.HasPrefix(sniffed, kind+"/") || sniffed == "application/ogg" || isoBox {
			return named, true
		}
	}
	return "", false
}
