package sandbox

import (
	"net/http"
	"time"

	"clapper/api"
)

// accountCredits is what the sandbox account was given; what tasks spent
// (and did not get back) is taken from it.
const accountCredits = 100000

type creditLine struct {
	Type               string `json:"type"`
	CreditRemain       int    `json:"credit_remain"`
	ConcurrencyLimit   int    `json:"concurrency_limit"`
	CurrentConcurrency int    `json:"current_concurrency"`
	QueueCount         int    `json:"queue_count"`
}

type creditPackage struct {
	Type         string `json:"type"`
	Name         string `json:"name"`
	CreditAmount int    `json:"credit_amount"`
	CreditRemain int    `json:"credit_remain"`
}

type creditsAnswer struct {
	RemainingCredits []creditLine    `json:"remaining_credits"`
	Packages         []creditPackage `json:"packages"`
}

// credits answers GET /ent/v2/credits in its documented form; show_detail
// adds the one package the sandbox account has.
func (s *Server) credits(rp *reply, r *http.Request) {
	detail := r.URL.Query().Get("show_detail") == "true"
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		remain := accountCredits
		running, queued := 0, 0
		st.compact()
		for _, u := range st.Units {
			remain -= u.reportedCredits()
			switch {
			case u.Kind == kindJob || u.terminal():
			case u.State == api.StateProcessing:
				running++
			default: // created or queueing: waiting for a slot
				queued++
			}
		}
		a := creditsAnswer{RemainingCredits: []creditLine{{Type: "general", CreditRemain: remain,
			ConcurrencyLimit: s.cfg.MaxConcurrent, CurrentConcurrency: running, QueueCount: queued}}, Packages: []creditPackage{}}
		if detail {
			a.Packages = append(a.Packages, creditPackage{Type: "general", Name: "sandbox account", CreditAmount: accountCredits, CreditRemain: remain})
		}
		return a, nil
	})
}
