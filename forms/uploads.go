package forms

import (
	"fmt"

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
