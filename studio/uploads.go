package studio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/track"
)

// Upload modes: when a local image goes through the service's upload flow
// instead of being inlined as a data URI.
const (
	UploadAuto   = "auto"   // when inlining would pass the request's size limit
	UploadAlways = "always" // every image data URI
	UploadNever  = "never"  // inline only
)

// UploadModes are the choices of the uploads setting.
var UploadModes = []string{UploadAuto, UploadAlways, UploadNever}

// uploadReuse is how long an upload's URI is used again for the same bytes.
// The service publishes no lifetime (its storage suggests 7 days); a day
// less leaves room, and a refused URI is replaced anyway.
const uploadReuse = 6 * 24 * time.Hour

// Send records a request and sends it, uploading its images first as the
// uploads setting says. A reference2video subject naming a stored subject
// (server_id) that neither the library nor the service knows is refused
// first, nothing sent. When the service refuses an upload sent earlier
// for the same bytes, the images are uploaded afresh and the request sent
// once more (history keeps the refused attempt).
func (s *Studio) Send(ctx context.Context, op api.Operation, body map[string]any) (*track.Submission, error) {
	return s.SendInSet(ctx, op, body, nil)
}

// SendInSet is Send for a line of a set (nil for none), tied to it as the
// request is recorded: a line sent before is refused with nothing sent.
func (s *Studio) SendInSet(ctx context.Context, op api.Operation, body map[string]any, line *record.SetLine) (*track.Submission, error) {
	return s.sendLinked(ctx, op, body, line, nil)
}

// sendLinked is Send for a set's line (nil for none) and the tasks it was
// sent onward from: those given, and those whose result URLs its fields
// hold (resultParents).
func (s *Studio) sendLinked(ctx context.Context, op api.Operation, body map[string]any, line *record.SetLine, parents []record.Parent) (*track.Submission, error) {
	if err := s.checkServerIDs(ctx, op, body); err != nil {
		return nil, err
	}
	parents = s.resultParents(ctx, op, body, parents)
	prepared, reused, err := s.uploadImages(ctx, op, body, false)
	if err != nil {
		return nil, err
	}
	ctx = s.reportSending(ctx, op)
	sub, err := s.tracker.SubmitLinked(ctx, op, prepared, line, parents)
	if err == nil {
		return sub, s.recordJobCredits(ctx, op, body, sub)
	}
	var capped *record.CapExceeded
	if errors.As(err, &capped) {
		return nil, s.capError(capped, s.Price(op, body))
	}
	if len(reused) == 0 || !refusedUpload(err) {
		return sub, err
	}
	for _, sha := range reused {
		if ferr := s.store.ForgetUpload(ctx, sha); ferr != nil {
			return nil, errors.Join(err, ferr)
		}
	}
	if prepared, _, err = s.uploadImages(ctx, op, body, true); err != nil {
		return nil, err
	}
	sub, err = s.tracker.SubmitLinked(ctx, op, prepared, line, parents)
	if err != nil {
		return sub, err
	}
	return sub, s.recordJobCredits(ctx, op, body, sub)
}

// recordJobCredits gives a multi-scene job the credits it costs: the
// service answers its creation with an id alone and its job record carries
// no credits, so without this every list, total and chart would count the
// job as free. The embedded sandbox charges by its own table, which is then
// exact; a live job's charge is not published and stays unknown (0).
func (s *Studio) recordJobCredits(ctx context.Context, op api.Operation, body map[string]any, sub *track.Submission) error {
	if !op.IsMultiScene() || sub.Task.Credits > 0 || !s.Sandbox() {
		return nil
	}
	p := s.Price(op, body)
	if !p.Known || p.Credits <= 0 {
		return nil
	}
	if err := s.store.AddCredits(ctx, sub.LocalID, p.Credits); err != nil {
		return fmt.Errorf("job %s was created; its %d credits were not recorded: %w", sub.Task.Identifier(), p.Credits, err)
	}
	return nil
}

// refusedUpload reports a creation refused because an uploaded image could
// not be read: the service names it ImageDownloadFailure.
func refusedUpload(err error) bool {
	var e *api.Error
	return errors.As(err, &e) && e.Reason == api.ReasonImageDownloadFailure
}

// NeedsNoInlining reports whether a body too large to inline will be sent
// anyway: its images will be uploaded.
func (c Config) NeedsNoInlining(op api.Operation, body map[string]any) bool {
	if c.Uploads == UploadNever {
		return false
	}
	_, found := catalog.MapImages(op, body, func(_ catalog.Field, v string) (string, bool) {
		return v, catalog.IsDataURI(v)
	})
	return len(found) > 0
}

// Uploading reports whether the image data URIs of a request whose body
// is size bytes inlined go through the upload flow rather than inline:
// all of them in mode always, all of them in mode auto when the inlined
// body would pass the service's limit, none in mode never. The review
// shows what is sent by the same rule.
func (c Config) Uploading(size int) bool {
	switch c.Uploads {
	case UploadNever:
		return false
	case UploadAlways:
		return true
	}
	return size > catalog.MaxBodyBytes // auto, the default when unset
}

// uploadImages replaces image data URIs by upload URIs, as Uploading says.
// Bytes uploaded before and still valid are not sent again unless fresh
// is set; reused lists the SHA-256 of those.
func (s *Studio) uploadImages(ctx context.Context, op api.Operation, body map[string]any, fresh bool) (map[string]any, []string, error) {
	if s.Config.Uploads == UploadNever {
		return body, nil, nil
	}
	raw, err := json.Marshal(body)
	if err != nil || !s.Config.Uploading(len(raw)) {
		return body, nil, nil
	}
	var reused []string
	var failure error
	out, _ := catalog.MapImages(op, body, func(_ catalog.Field, v string) (string, bool) {
		if failure != nil || !catalog.IsDataURI(v) {
			return "", false
		}
		d, err := catalog.ParseDataURI(v)
		if err != nil {
			return "", false // Validate has said why
		}
		uri, again, err := s.upload(ctx, d, fresh)
		if err != nil {
			failure = err
			return "", false
		}
		if again {
			reused = append(reused, sha(d.Data))
		}
		return uri, true
	})
	if failure != nil {
		return nil, nil, failure
	}
	if raw, err := json.Marshal(out); err == nil && len(raw) > catalog.MaxBodyBytes {
		return nil, nil, fmt.Errorf("request body is %s even with its images uploaded; the service takes at most 20 MB (use URLs for large media)", api.ByteSize(int64(len(raw))))
	}
	return out, reused, nil
}

// upload answers the URI of the bytes: one recorded earlier and still
// valid (again is true), or a new upload, recorded.
func (s *Studio) upload(ctx context.Context, d catalog.DataURI, fresh bool) (uri string, again bool, err error) {
	sum := sha(d.Data)
	now := s.Now()
	if !fresh {
		if u, ok, err := s.store.UploadOf(ctx, sum, now); err != nil {
			return "", false, err
		} else if ok {
			return u.URI, true, nil
		}
	}
	ct := catalog.ImageContentType(d.Data)
	if ct == "" {
		ct = d.ContentType
	}
	if err := catalog.CheckUploadImage(d.Data); err != nil {
		return "", false, fmt.Errorf("upload: %w", err)
	}
	uri, err = s.client.Upload(ctx, d.Data, ct)
	if err != nil {
		return "", false, fmt.Errorf("upload of a %s image: %w", strings.TrimPrefix(ct, "image/"), err)
	}
	err = s.store.RecordUpload(ctx, record.Upload{SHA256: sum, URI: uri, ContentType: ct, Size: len(d.Data),
		CreatedAt: now, ExpiresAt: now.Add(uploadReuse)})
	return uri, false, err
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
