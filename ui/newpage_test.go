package ui

import (
	"fmt"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// openForm shows the New page with an operation's form for a model, its
// first check done.
func showForm(t *testing.T, m *Model, op api.Operation, model string) *newPage {
	t.Helper()
	send(m, press("2"))
	p := m.pages[pageNew].(*newPage)
	p.form = nil
	cmd := p.openForm(op, model, nil)
	if !runUntil(m, cmd, func() bool { return p.form != nil && p.form.Check() != nil }, 5*time.Second) {
		t.Fatalf("the %s form never finished its first check", op)
	}
	return p
}

// The form of every operation, with two models where it has them: the
// fields, defaults and options follow the model.
func TestFormScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, op := range api.Operations() {
				models := catalog.Models(op)
				if len(models) > 2 {
					models = models[:2]
				}
				if len(models) == 0 {
					models = []string{""}
				}
				for _, model := range models {
					name := string(op)
					if model != "" {
						name += "_" + model
					}
					t.Run(name, func(t *testing.T) {
						m, _ := newTestModel(t, size.w, size.h)
						showForm(t, m, op, model)
						snapshot(t, m)
					})
				}
			}
		})
	}
}
