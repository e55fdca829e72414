package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api/catalog"
	"clapper/record"
)

// Resource URIs of saved images: a result that is an image, a video's cover.
const (
	resultTemplate = "clapper://result/{task_id}/{index}"
	coverTemplate  = "clapper://cover/{task_id}/{index}"
)

var resourceKinds = map[string]record.URLKind{"result": record.KindURL, "cover": record.KindCover}

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "result", Title: "A saved image result", URITemplate: resultTemplate,
		Description: "An image a task made, once download_results saved it (index from 0)."}, s.readImage)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "cover", Title: "A video's saved cover", URITemplate: coverTemplate,
		Description: "The cover image of a video result, once download_results saved it (index from 0)."}, s.readImage)
}

func resourceURI(d record.Download) string {
	kind := "result"
	if d.Kind == record.KindCover {
		kind = "cover"
	}
	return fmt.Sprintf("clapper://%s/%s/%d", kind, url.PathEscape(d.TaskID), d.Index)
}

func isImagePath(p string) bool { return imageType(p) != "" }

// imageType is the content type of a saved image by its name ("" for
// anything else); serving it checks the bytes too.
func imageType(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	}
	return ""
}

// readImage serves a saved image file, bounded in size, and only when its
// bytes are an image: a resource never hands out anything else.
func (s *Server) readImage(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "clapper" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	kind, ok := resourceKinds[u.Host]
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
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
		return s.imageContents(uri, d.Path)
	}
	return nil, sdk.ResourceNotFoundError(uri)
}

func (s *Server) imageContents(uri, path string) (*sdk.ReadResourceResult, error) {
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
	info, err := catalog.InspectImage(data)
	if err != nil {
		return nil, fmt.Errorf("%s: the saved file is not an image", uri)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "image/" + info.Format, Blob: data}}}, nil
}
