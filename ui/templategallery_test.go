package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
)

// In a running program, template2video's gallery lists the templates with
// what each needs, narrows as a word is typed, and the template chosen
// shapes the form: area only for exotic_princess, beast only for
// beast_companion, the prompt required only where the template wants one.
func TestTemplateGalleryInARunningProgram(t *testing.T) {
	tm, _ := runningModel(t, 120, 40)
	waitScreen(t, tm, "fox")
	tm.Send(press("2"))
	tm.Send(press("G")) // template2video, the last operation
	tm.Send(press("enter"))
	waitScreen(t, tm, "known") // the gallery's count: 6 known
	tm.Type("beast")
	waitScreen(t, tm, "auto") // the beast row, with its default
	for range 6 {             // the filter, then the choice
		tm.Send(press("backspace"))
	}
	tm.Type("dance")
	tm.Send(press("enter"))      // on to the photos, as many as the template takes
	waitScreen(t, tm, "photos:") // the subject_3 template's photos: 1 photo
	tm.Send(press("q"))          // text in a field: no quit
	tm.Send(press("esc"))
	waitScreen(t, tm, "open") // the operations: enter open form
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	final := tm.FinalModel(t).(*Model)
	p := final.pages[pageNew].(*newPage)
	if got := p.form.Values()["template"]; got != "subject_3" {
		t.Fatalf("template %v, want subject_3", got)
	}
	if got := p.form.Values()["images"]; fmt.Sprint(got) != "[q]" {
		t.Fatalf("the q typed into the photos is %v", got)
	}
}

// The form a template shapes: the rows each template shows, and whether
// its prompt is required, read off the screen.
func TestTemplateShapesTheForm(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	p := showForm(t, m, api.OpTemplate2Video, "")
	for _, c := range []struct {
		downs          int
		template       string
		area, beast    bool
		promptRequired bool
	}{
		{1, "hugging", false, false, true},
		{3, "subject_3", false, false, false},
		{5, "exotic_princess", true, false, true},
		{6, "beast_companion", false, true, true},
	} {
		send(m, press("backspace")) // no template: ↓ starts at the first
		for range c.downs {
			send(m, press("down"))
		}
		typeAndSettle(t, m, p)
		if got := p.form.Values()["template"]; got != c.template {
			t.Fatalf("%d downs chose %v, want %s", c.downs, got, c.template)
		}
		got := screen(m)
		if has := rowLabelled("area").MatchString(got); has != c.area {
			t.Errorf("%s: the area row shows: %v\n%s", c.template, has, got)
		}
		if has := rowLabelled("beast").MatchString(got); has != c.beast {
			t.Errorf("%s: the beast row shows: %v\n%s", c.template, has, got)
		}
		if has := strings.Contains(got, "prompt *"); has != c.promptRequired {
			t.Errorf("%s: the prompt is marked required: %v\n%s", c.template, has, got)
		}
	}
}

// rowLabelled finds a form row by its label, the first word of its line.
func rowLabelled(label string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(┃\s*)?` + label + `\b`)
}

// The gallery on a small and a large terminal: the list, and the list
// narrowed by a word.
func TestTemplateGalleryScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Run("list", func(t *testing.T) {
				m, _ := newTestModel(t, size.w, size.h)
				p := showForm(t, m, api.OpTemplate2Video, "")
				for range 5 {
					send(m, press("down"))
				}
				typeAndSettle(t, m, p)
				snapshot(t, m)
			})
			t.Run("filtered", func(t *testing.T) {
				m, _ := newTestModel(t, size.w, size.h)
				p := showForm(t, m, api.OpTemplate2Video, "")
				typeText(m, "land")
				typeAndSettle(t, m, p)
				snapshot(t, m)
			})
		})
	}
}
