package catalog

import (
	"strings"
	"testing"
)

// A catalog file that is not JSON, or of the wrong shape, is named with the
// line and column where it goes wrong, as an editor counts them.
func TestCatalogFileErrorsSayWhere(t *testing.T) {
	for data, want := range map[string]string{
		"[\n  {\"operation\": \"text2video\",, }\n]":                 "catalog.json:2:30: not a catalog",
		"[\n  {\"operation\": \"text2video\",\n   \"models\": 7}\n]": "catalog.json:3:14: not a catalog",
		"[\n  {\"operation\": \"text2video\", \"modles\": []}\n]":    "catalog.json:2:31: not a catalog",
	} {
		_, err := parseLayer([]byte(data), "catalog.json", LayerUser, nil)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q…", data, err, want)
		}
	}
}
