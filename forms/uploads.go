package forms

import (
	"fmt"
	"slices"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
)

// bodyTooLarge starts the refusal of a body past the service's limit.
const bodyTooLarge = "request: the body is "

// allowUploads lets a body past the service's limit through when its image
// data URIs will be uploaded instead of inlined (Context.UploadImages): the
// refusal becomes a note. The studio checks the size again after uploading.
func (c *Check) allowUploads(op api.Operation) {
	if c.Size <= catalog.MaxBodyBytes {
		return
	}
	_, images := catalog.MapImages(op, c.Body, func(_ catalog.Field, v string) (string, bool) { return v, catalog.IsDataURI(v) })
	if len(images) == 0 {
		return
	}
	tooLarge := func(m string) bool { return strings.HasPrefix(m, bodyTooLarge) }
	c.Errors["request"] = slices.DeleteFunc(c.Errors["request"], tooLarge)
	if len(c.Errors["request"]) == 0 {
		delete(c.Errors, "request")
	}
	c.Broken = slices.DeleteFunc(c.Broken, tooLarge)
	c.Warnings = append(c.Warnings, fmt.Sprintf("request: %s inlined; %s will be uploaded first (the uploads setting)",
		api.ByteSize(int64(c.Size)), imagesText(len(images))))
}

func imagesText(n int) string {
	if n == 1 {
		return "its image"
	}
	return fmt.Sprintf("its %d images", n)
}
