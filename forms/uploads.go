package forms

import (
	"encoding/json"
	"fmt"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
)

// SizeRule says why a request of size bytes (its files inlined) cannot be
// sent, "" when it can: the front end hands over the studio's one rule
// (past 20 MB only when its images will be uploaded instead).
type SizeRule func(op api.Operation, body map[string]any, size int) string

// holdSize holds the body to the service's limit by rule (nil: 20 MB,
// nothing uploaded); a body past it whose images will be uploaded gets a
// note instead of a refusal.
func (c *Check) holdSize(op api.Operation, rule SizeRule) {
	if c.Size <= catalog.MaxBodyBytes {
		return
	}
	why := fmt.Sprintf("request: the body is %s; the service takes at most 20 MB", api.ByteSize(int64(c.Size)))
	if rule != nil {
		why = rule(op, c.Body, c.Size)
	}
	if why != "" {
		c.add("request", why)
		return
	}
	_, images := catalog.MapImages(op, c.Body, func(_ catalog.Field, v string) (string, bool) { return v, catalog.IsDataURI(v) })
	c.Warnings = append(c.Warnings, fmt.Sprintf("request: %s inlined; %s will be uploaded first (the uploads setting)",
		api.ByteSize(int64(c.Size)), imagesText(len(images))))
}

func imagesText(n int) string {
	if n == 1 {
		return "its image"
	}
	return fmt.Sprintf("its %d images", n)
}

// measureUploads is what is sent when the body's images go through the
// upload flow: the body with each image's URI in place of its data URI,
// and the images' bytes. Measured with the check, in the background: a
// 20 MB body is not walked again on every frame.
func (c *Check) measureUploads(op api.Operation) {
	uploaded := 0
	body, _ := catalog.MapImages(op, c.Body, func(_ catalog.Field, v string) (string, bool) {
		if !catalog.IsDataURI(v) {
			return "", false
		}
		_, data, _ := strings.Cut(v, ",")
		uploaded += len(data) * 3 / 4
		return "ssupload:?id=" + strings.Repeat("0", 18), true // an upload's URI, as long
	})
	if sent, err := json.Marshal(body); err == nil && uploaded > 0 {
		c.SentSize, c.Uploaded = len(sent), uploaded
	}
}
