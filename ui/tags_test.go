package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// openTagEditor opens the detail of task id and presses t.
func openTagEditor(t *testing.T, m *Model, id int64) {
	t.Helper()
	run(m, func() tea.Msg { return openDetailMsg{localID: id} })
	if !runUntil(m, nil, func() bool { return m.detail() != nil && m.detail().task != nil }, 5*time.Second) {
		t.Fatalf("the detail of #%d did not open:\n%s", id, screen(m))
	}
	send(m, press("t"))
	if _, ok := m.dialog().(*tagEditor); !ok {
		t.Fatalf("t did not open the tag editor:\n%s", screen(m))
	}
}

// t in the detail sets tags and a note: a tag that is no tag is named and
// kept in the editor; saved ones are in history and the detail shows them.
func TestTagsAndNoteFromTheDetail(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	ctx := context.Background()
	fox, err := s.Record().TaskByID(ctx, "811000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	openTagEditor(t, m, fox.LocalID)
	typeText(m, "Keeper a/b")
	send(m, ctrl('s'))
	if m.dialog() == nil || !strings.Contains(screen(m), `tag "a/b": a tag is letters, digits`) {
		t.Fatalf("a bad tag must be named and the editor stay:\n%s", screen(m))
	}
	for range 3 {
		send(m, press("backspace"))
	}
	typeText(m, "client-a")
	send(m, press("tab"))
	typeText(m, "best seed so far")
	send(m, press("enter"))
	typeText(m, "second line")
	send(m, ctrl('s'))
	if m.dialog() != nil {
		t.Fatalf("ctrl+s did not save:\n%s", screen(m))
	}
	got := func() record.Task {
		task, err := s.Record().Task(ctx, fox.LocalID)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	if !runUntil(m, nil, func() bool { return len(got().Tags) == 2 }, 5*time.Second) {
		t.Fatalf("the tags were not kept: %q", got().Tags)
	}
	if task := got(); !slices.Equal(task.Tags, []string{"client-a", "keeper"}) || task.Note != "best seed so far\nsecond line" {
		t.Fatalf("kept %q and %q", task.Tags, task.Note)
	}
	if !runUntil(m, nil, func() bool {
		sc := screen(m)
		return strings.Contains(sc, "tags  client-a keeper") && strings.Contains(sc, "note  best seed so far") && strings.Contains(sc, "      second line")
	}, 5*time.Second) {
		t.Fatalf("the detail does not show the tags and note:\n%s", screen(m))
	}
	// Reopened, the editor holds them; esc keeps them as they are.
	send(m, press("t"))
	if sc := screen(m); !strings.Contains(sc, "client-a, keeper") {
		t.Fatalf("the editor does not hold the tags:\n%s", sc)
	}
	send(m, press("esc"))
	if m.dialog() != nil || len(got().Tags) != 2 {
		t.Fatal("esc must close the editor and change nothing")
	}
}

// tagTasks tags the standard tasks by their service ids.
func tagTasks(t *testing.T, s interface {
	TaskByID(context.Context, string) (record.Task, error)
	SetLabels(context.Context, int64, []string, string) error
}, tags map[string][]string) {
	t.Helper()
	for id, tt := range tags {
		task, err := s.TaskByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetLabels(context.Background(), task.LocalID, tt, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// tag: in the Tasks filter keeps only the tasks with every tag named; the
// rows show their tags.
func TestTasksFilterByTag(t *testing.T) {
	m, s := newTestModel(t, 100, 30)
	tagTasks(t, s.Record(), map[string][]string{"811000000000000001": {"keeper", "client-a"}, "811000000000000006": {"keeper"}})
	p := m.pages[pageTasks].(*tasksPage)
	send(m, press("1"))
	run(m, p.refresh())
	if sc := screen(m); !strings.Contains(sc, "#client-a #… a red fox") || !strings.Contains(sc, "#keeper a whale") {
		t.Fatalf("the row does not show its tags:\n%s", sc)
	}
	search := func(text string) {
		t.Helper()
		send(m, press("/"))
		for p.filter.Value() != "" {
			send(m, press("backspace"))
		}
		typeText(m, text)
		send(m, press("enter"))
		run(m, nil)
	}
	search("tag:keeper")
	if !runUntil(m, nil, func() bool { return p.win.total == 2 }, 5*time.Second) {
		t.Fatalf("tag:keeper lists %d tasks, want 2:\n%s", p.win.total, screen(m))
	}
	if sc := screen(m); !strings.Contains(sc, "a red fox") || !strings.Contains(sc, "a whale breaching") || strings.Contains(sc, "neon city") {
		t.Fatalf("tag:keeper shows other tasks:\n%s", sc)
	}
	search("tag:keeper tag:client-a")
	if !runUntil(m, nil, func() bool { return p.win.total == 1 }, 5*time.Second) {
		t.Fatalf("two tags list %d tasks, want 1:\n%s", p.win.total, screen(m))
	}
	// The quick state filter and a typed state: hold together.
	search("tag:keeper state:processing")
	if !runUntil(m, nil, func() bool { return p.win.total == 1 && strings.Contains(screen(m), "a whale") }, 5*time.Second) {
		t.Fatalf("tag and state list %d:\n%s", p.win.total, screen(m))
	}
	search("tag:a/b")
	if sc := screen(m); !strings.Contains(sc, "tag:a/b: a tag is") || p.win.total != 1 {
		t.Fatalf("a tag that cannot be one must be named, the list kept:\n%s", sc)
	}
}

// tag: in the History search narrows the same way.
func TestHistorySearchByTag(t *testing.T) {
	m, s := newTestModel(t, 100, 30)
	tagTasks(t, s.Record(), map[string][]string{"811000000000000002": {"cats"}})
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	send(m, press("/"))
	typeText(m, "tag:cats")
	send(m, lastHistoryPause(t, m))
	if len(p.win.rows) != 1 || !strings.Contains(screen(m), "a cat astronaut") {
		t.Fatalf("tag:cats lists %d rows, want the cat:\n%s", len(p.win.rows), screen(m))
	}
}

// The tag editor at both sizes, over a task's detail.
func TestTagEditorScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m, s := newTestModel(t, size.w, size.h)
			tagTasks(t, s.Record(), map[string][]string{"811000000000000001": {"keeper"}})
			fox, err := s.Record().TaskByID(context.Background(), "811000000000000001")
			if err != nil {
				t.Fatal(err)
			}
			openTagEditor(t, m, fox.LocalID)
			snapshot(t, m)
		})
	}
}

// An 80-column list shows a task's tags too: before its subject in a third
// of the room, or in all of it when the task has no subject (a request that
// names neither a prompt nor a file).
func TestTagsShowInAnEightyColumnList(t *testing.T) {
	m, _ := newClockedModel(t, []task{{api.OpImg2Video, "svcq3-turbo", `{"model":"svcq3-turbo"}`,
		"811000000000000041", api.StateSuccess, 25, "", testNow.Add(-time.Minute), 0}})
	tagTasks(t, m.env.store(), map[string][]string{"811000000000000001": {"keeper"}, "811000000000000041": {"client-a", "keeper"}})
	p := m.pages[pageTasks].(*tasksPage)
	run(m, p.refresh())
	sc := screen(m)
	if !strings.Contains(sc, "#keeper a red fox in") {
		t.Fatalf("an 80-column row does not lead with its tag:\n%s", sc)
	}
	if !strings.Contains(sc, "#client-a #keeper") {
		t.Fatalf("a row with no subject does not show its tags in full:\n%s", sc)
	}
}

// esc over tags or a note typed and not saved asks once: the editor stays
// saying so, another key goes on editing, esc again drops what was typed.
func TestTagEditorEscAsksOverTypedText(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	fox, err := s.Record().TaskByID(context.Background(), "811000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	openTagEditor(t, m, fox.LocalID)
	send(m, press("tab"))
	typeText(m, "a long note")
	send(m, press("esc"))
	if m.dialog() == nil || !strings.Contains(screen(m), "esc again drops it") {
		t.Fatalf("esc over a typed note closed the editor unasked:\n%s", screen(m))
	}
	typeText(m, "!")
	if d, ok := m.dialog().(*tagEditor); !ok || d.note.Value() != "a long note!" || strings.Contains(screen(m), "esc again") {
		t.Fatalf("a key after the warning did not go on editing:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("esc"))
	if m.dialog() != nil {
		t.Fatalf("esc twice did not drop the typed note:\n%s", screen(m))
	}
	if task, _ := s.Record().Task(context.Background(), fox.LocalID); task.Note != "" {
		t.Fatalf("the dropped note was kept: %q", task.Note)
	}
}

// Under a dialog the help line lists no key: the dialog takes every key
// and names its own in its box (the detail's "esc back", "? help" and "q
// quit" under it did nothing).
func TestNoPageKeysUnderADialog(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	fox, err := s.Record().TaskByID(context.Background(), "811000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	openTagEditor(t, m, fox.LocalID)
	lines := strings.Split(screen(m), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		t.Errorf("keys listed under the tag editor: %q", last)
	}
	if !strings.Contains(screen(m), "esc cancel") {
		t.Errorf("the dialog does not name its keys:\n%s", screen(m))
	}
}
