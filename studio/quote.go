package studio

import (
	"context"
	"fmt"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/api/sandbox"
)

// priceFields are the request fields a price depends on besides the
// operation and model; a past task is a fair guide only when they match.
var priceFields = []string{"duration", "resolution", "quality", "off_peak", "is_rec", "lip_sync", "premium_mv_mode"}

// Quote prices a request for the review before sending. The sandbox charges
// by its own table; the live service publishes none, so the price shown is
// what the same operation, model, duration and resolution cost last time in
// this history, labelled as such, or nothing: never an invented figure.
func (s *Studio) Quote(op api.Operation, body map[string]any) string {
	if s.Sandbox() {
		return fmt.Sprintf("%d credits (sandbox price table)", sandbox.Quote(op, body))
	}
	full := catalog.WithDefaults(op, body)
	want := map[string]string{}
	var shown []string
	for _, k := range priceFields {
		if _, takes := catalog.FieldOf(op, k); !takes {
			continue
		}
		want[k] = ""
		if v, ok := full[k]; ok && v != nil {
			want[k] = catalog.FormatValue(v)
			shown = append(shown, k+" "+want[k])
		}
	}
	model, _ := body["model"].(string)
	pc, ok, err := s.Store.LastCost(context.Background(), op, model, func(past map[string]any) bool {
		past = catalog.WithDefaults(op, past)
		for k, v := range want {
			got := ""
			if x, ok := past[k]; ok && x != nil {
				got = catalog.FormatValue(x)
			}
			if got != v {
				return false
			}
		}
		return true
	})
	like := strings.TrimSpace(string(op) + " " + model + " " + strings.Join(shown, ", "))
	switch {
	case err != nil:
		return "unknown (history could not be read: " + err.Error() + ")"
	case !ok:
		return "unknown: no earlier " + like + " in history (the service publishes no price table)"
	}
	return fmt.Sprintf("%d credits last time (%s, task %s on %s); the service may charge differently",
		pc.Credits, like, pc.TaskID, pc.CreatedAt.Local().Format("Jan 2"))
}
