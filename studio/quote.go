package studio

import (
	"context"
	"fmt"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/api/sandbox"
	"clapper/internal/textutil"
	"clapper/scenes"
)

// priceFields are the request fields a price depends on besides the
// operation and model; a past task is a fair guide only when they match.
var priceFields = []string{"duration", "resolution", "quality", "off_peak", "is_rec", "lip_sync", "premium_mv_mode"}

// Price is what a request is expected to cost.
type Price struct {
	Credits int64
	Known   bool   // Credits is the sandbox's price or a past task's charge
	Text    string // the price as the review shows it, with where it comes from
}

// Quote prices a request for the review before sending (Price's text).
func (s *Studio) Quote(op api.Operation, body map[string]any) string { return s.Price(op, body).Text }

// Price prices a request. The sandbox charges by its own table; the live
// service publishes none, so the price is what the same operation, model,
// duration and resolution cost last time in this history, labelled as
// such, or unknown: never an invented figure.
func (s *Studio) Price(op api.Operation, body map[string]any) Price {
	if s.Sandbox() {
		n := sandbox.Quote(op, body)
		return Price{Credits: int64(n), Known: true, Text: textutil.Plural(n, "credit") + " (sandbox price table)"}
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
	pc, ok, err := s.store.LastCost(s.life, op, model, func(past map[string]any) bool {
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
		return Price{Text: "unknown (history could not be read: " + err.Error() + ")"}
	case !ok:
		return Price{Text: "unknown: no earlier " + like + " in history (the service publishes no price table)"}
	}
	return Price{Credits: pc.Credits, Known: true, Text: fmt.Sprintf("%s last time (%s, task %s on %s); the service may charge differently",
		textutil.Plural(int(pc.Credits), "credit"), like, pc.TaskID, pc.CreatedAt.Local().Format("Jan 2"))}
}

// ScenePrice prices a scene edit of a scene of seconds (edit) or a
// composition of a multi-scene job (!edit), for the confirmation before it
// is sent. The sandbox charges an edit like a new scene of that length and
// nothing for a composition; the live service publishes no price for
// either.
func (s *Studio) ScenePrice(edit bool, seconds int) Price {
	if !s.Sandbox() {
		return Price{Text: "unknown (the service publishes no price for scene edits and compositions)"}
	}
	n := 0
	if edit {
		n = sandbox.Quote(api.OpGeneralOneClick, map[string]any{"duration": seconds})
	}
	return Price{Credits: int64(n), Known: true, Text: textutil.Plural(n, "credit") + " (sandbox price table)"}
}

// SceneEditPrice prices making again the scene that version sceneJobID of
// job jobID belongs to: a scene of that version's length. It is unknown
// when history does not hold the version yet; the edit itself then says
// what is wrong.
func (s *Studio) SceneEditPrice(ctx context.Context, jobID, sceneJobID string) Price {
	if !s.Sandbox() {
		return s.ScenePrice(true, 0)
	}
	if j, err := s.Scenes().Load(ctx, jobID); err == nil {
		if _, v, ok := scenes.Find(j, sceneJobID); ok {
			return s.ScenePrice(true, v.Duration)
		}
	}
	return Price{Text: "unknown (the scene's length is not in history yet)"}
}
