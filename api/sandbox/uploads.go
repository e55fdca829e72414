package sandbox

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// The upload flow (service notes, Uploads): POST /tools/v2/files/uploads
// opens an upload with a signed put_url; the image is PUT there; PUT
// .../uploads/{id}/finish with the storage's etag returns the ssupload: URI.
const (
	// uploadPutWindow is how long a put_url takes the image.
	uploadPutWindow = time.Hour
	// uploadLifetime is how long a finished upload's URI is accepted: not
	// published; the service's storage suggests 7 days.
	uploadLifetime = 7 * 24 * time.Hour
	// uploadIDPrefix marks the ids this sandbox issues. An ssupload: URI
	// with another id was issued elsewhere (the service, another sandbox):
	// it is accepted as given, as a URL is, since the sandbox cannot ask.
	uploadIDPrefix = "sbu"
	uploadSalt     = 0xd1
)

// upload is one image upload; the state keeps what was learnt of the bytes,
// not the bytes.
type upload struct {
	ID          string    `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	PutBy       time.Time `json:"put_by"`
	ContentType string    `json:"content_type,omitempty"`
	Size        int       `json:"size,omitempty"`
	SHA256      string    `json:"sha256,omitempty"`
	ETag        string    `json:"etag,omitempty"`
	Problem     string    `json:"problem,omitempty"` // why the bytes are no acceptable image
	Finished    bool      `json:"finished,omitempty"`
	ExpiresAt   time.Time `json:"expires_at,omitzero"` // the URI's end, once finished
}

type uploadOpened struct {
	ID        string `json:"id"`
	PutURL    string `json:"put_url"`
	ExpiresAt string `json:"expires_at"`
}

func putSignature(secret []byte, id string, exp int64) string {
	return fileSignature(secret, "upload/"+id, "put", exp)
}

// openUpload answers POST /tools/v2/files/uploads.
func (s *Server) openUpload(rp *reply, r *http.Request) {
	var body map[string]any
	if r.ContentLength != 0 {
		var e *api.Error
		if body, e = readBody(rp.w, r); e != nil {
			rp.fail(e)
			return
		}
	}
	if sc, ok := body["scene"]; ok && sc != "vidu" {
		rp.fail(apiError(api.ReasonFieldInvalid, `invalid field: scene (the scene of image uploads is "vidu")`, "scene"))
		return
	}
	o := origin(r)
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		st.trimUploads(now)
		st.AuxSeq++
		u := &upload{ID: uploadIDPrefix + makeID(st.Seed, st.AuxSeq, uploadSalt), CreatedAt: now, PutBy: now.Add(uploadPutWindow)}
		st.Uploads[u.ID] = u
		st.dirty = true
		exp := u.PutBy.Unix()
		put := o + "/_sandbox/uploads/" + u.ID + "?exp=" + strconv.FormatInt(exp, 10) + "&sig=" + putSignature(st.Secret, u.ID, exp)
		return uploadOpened{ID: u.ID, PutURL: put, ExpiresAt: stamp(u.PutBy)}, nil
	})
}

// putUpload is the storage behind a put_url: it takes the bytes and answers
// 200 with an etag, as object storage does; it judges nothing but the size.
func (s *Server) putUpload(rp *reply, r *http.Request, id string) {
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	if err != nil {
		rp.fail(apiError(api.ReasonForbidden, "upload URL is not signed", "exp"))
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(rp.w, r.Body, catalog.MaxUploadBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			rp.fail(apiError(api.ReasonBadRequest, "upload exceeds 10 MB", "body"))
			return
		}
		rp.fail(apiError(api.ReasonBadRequest, "upload could not be read: "+err.Error(), "body"))
		return
	}
	sum := md5.Sum(data)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	sha := sha256.Sum256(data)
	var problem string
	if err := catalog.CheckUploadImage(data); err != nil {
		problem = err.Error()
	}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		if !hmac.Equal([]byte(q.Get("sig")), []byte(putSignature(st.Secret, id, exp))) {
			return nil, apiError(api.ReasonForbidden, "upload URL signature is invalid", "sig")
		}
		u := st.Uploads[id]
		switch {
		case u == nil:
			return nil, apiError(api.ReasonNotFound, "no such upload: "+id, "id")
		case now.After(time.Unix(exp, 0)):
			return nil, apiError(api.ReasonForbidden, "upload URL expired at "+stamp(time.Unix(exp, 0)), "exp")
		case u.Finished:
			return nil, apiError(api.ReasonConflict, "upload "+id+" is finished; open a new one", "id")
		}
		u.ContentType, u.Size, u.ETag, u.Problem = r.Header.Get("Content-Type"), len(data), etag, problem
		u.SHA256 = hex.EncodeToString(sha[:])
		st.dirty = true
		rp.w.Header().Set("ETag", etag)
		return struct{}{}, nil
	})
}

// finishUpload answers PUT /tools/v2/files/uploads/{id}/finish.
func (s *Server) finishUpload(rp *reply, r *http.Request, id string) {
	body, e := readBody(rp.w, r)
	if e != nil {
		rp.fail(e)
		return
	}
	etag, _ := body["etag"].(string)
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		u := st.Uploads[id]
		switch {
		case u == nil:
			return nil, apiError(api.ReasonNotFound, "no such upload: "+id, "id")
		case u.ETag == "":
			return nil, apiError(api.ReasonBadRequest, "nothing was uploaded to "+id+"; PUT the image to its put_url first", "id")
		case etag == "":
			return nil, apiError(api.ReasonFieldLacking, "field is missing or empty: etag", "etag")
		case strings.Trim(etag, `"`) != strings.Trim(u.ETag, `"`):
			return nil, apiError(api.ReasonFieldInvalid, "invalid field: etag (it is not the etag the upload answered)", "etag")
		case u.Problem != "":
			return nil, apiError(api.ReasonImageFormatInvalid, "invalid image format: "+u.Problem, "id")
		}
		if !u.Finished {
			u.Finished, u.ExpiresAt = true, now.Add(uploadLifetime)
			st.dirty = true
		}
		return map[string]string{"uri": catalog.UploadURI(u.ID)}, nil
	})
}

// uploadProblem says why an ssupload: URI of a request cannot be used: an
// id this sandbox issued that it does not know, that was never finished or
// that expired. Ids issued elsewhere are accepted as given.
func (st *state) uploadProblem(uri string, now time.Time) string {
	id, ok := catalog.UploadID(uri)
	if !ok || !strings.HasPrefix(id, uploadIDPrefix) {
		return ""
	}
	u := st.Uploads[id]
	switch {
	case u == nil:
		return "no upload " + id
	case !u.Finished:
		return "upload " + id + " was never finished"
	case now.After(u.ExpiresAt):
		return "upload " + id + " expired at " + stamp(u.ExpiresAt) + "; upload the image again"
	}
	return ""
}

// checkUploads refuses a creation whose image uploads cannot be read, as
// the service refuses an image it cannot download.
func (st *state) checkUploads(params map[string]any, now time.Time) *api.Error {
	var e *api.Error
	for k, v := range params {
		walkStrings(v, func(s string) {
			if e == nil && strings.HasPrefix(strings.ToLower(s), catalog.UploadScheme) {
				if p := st.uploadProblem(s, now); p != "" {
					e = apiError(api.ReasonImageDownloadFailure, "image download failure: "+k+" ("+p+")", k)
				}
			}
		})
	}
	return e
}

// walkStrings calls fn on every string inside a JSON value.
func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, it := range x {
			walkStrings(it, fn)
		}
	case map[string]any:
		for _, it := range x {
			walkStrings(it, fn)
		}
	}
}

// trimUploads forgets uploads whose URI or put window is over.
func (st *state) trimUploads(now time.Time) {
	for id, u := range st.Uploads {
		if (u.Finished && now.After(u.ExpiresAt.Add(uploadLifetime))) || (!u.Finished && now.After(u.PutBy.Add(uploadLifetime))) {
			delete(st.Uploads, id)
			st.dirty = true
		}
	}
}
