package sandbox

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"clapper/api"
)

// Issue 11, item 13: "Audio creations carry cover_url (empty) like every
// Creation item."
func TestAudioCreationsCarryAnEmptyCoverURL(t *testing.T) {
	h := newHarness(t, Config{})
	ids := []string{
		h.createID(api.OpAudioTTS, samples[api.OpAudioTTS]),
		h.createID(api.OpAudioClone, samples[api.OpAudioClone]),
		h.createID(api.OpTiming2Audio, samples[api.OpTiming2Audio]),
	}
	h.until(ids[2], api.StateSuccess, 10*time.Minute)
	for _, id := range ids {
		status, _, raw := h.call(http.MethodGet, "/ent/v2/tasks/"+id+"/creations", nil, nil)
		if status != http.StatusOK {
			t.Fatalf("HTTP %d: %s", status, raw)
		}
		var r struct {
			Creations []map[string]any `json:"creations"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Creations) != 1 {
			t.Fatalf("%s: %d creations, want 1: %s", id, len(r.Creations), raw)
		}
		if c, ok := r.Creations[0]["cover_url"]; !ok || c != "" {
			t.Errorf("%s: cover_url = %v (present %v), want \"\": %s", id, c, ok, raw)
		}
	}
}
