package ui

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// sheetSet records a variations set of n versions of one image request:
// all but the last two succeeded with a saved picture (a gradient of its
// own colour), the second last is processing at 40%, the last was never
// sent. It returns the set's id and each sent line's task row.
func sheetSet(t testing.TB, s *studio.Studio, clk *clock, n int) (int64, []int64) {
	t.Helper()
	ctx := context.Background()
	members := make([]record.SetMember, n)
	for i := range members {
		members[i] = record.SetMember{Line: i + 1, Operation: api.OpReference2Image, Label: fmt.Sprintf("seed=%d", 1000+i)}
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", fmt.Sprintf("reference2image, %d versions", n), members)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Config.DataDir, "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var locals []int64
	for i := range n - 1 {
		clk.t = testNow.Add(-time.Hour + time.Duration(i)*time.Minute)
		body := fmt.Sprintf(`{"model":"svcq2","prompt":"a lighthouse at dusk","seed":%d}`, 1000+i)
		local, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(body), Origin: record.OriginTUI,
			Set: &record.SetLine{SetID: id, Line: i + 1}})
		if err != nil {
			t.Fatal(err)
		}
		locals = append(locals, local)
		taskID := fmt.Sprintf("8120000000000000%02d", i+1)
		if err := s.Record().MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: taskID, Credits: 4, Raw: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		u := record.Update{State: api.StateSuccess, Credits: 4}
		if i == n-2 {
			p := int64(40)
			u = record.Update{State: api.StateProcessing, Credits: 4, Progress: &p}
		} else {
			u.Creations = record.CreationsFrom([]api.Creation{{ID: "0", URL: "http://127.0.0.1:1/" + taskID + ".png"}}, testNow.Add(24*time.Hour))
		}
		if _, err := s.Record().ApplyResult(ctx, taskID, u); err != nil {
			t.Fatal(err)
		}
		if i == n-2 {
			continue
		}
		path := filepath.Join(dir, taskID+".png")
		writeGradient(t, path, i)
		dl, err := s.Record().QueueDownload(ctx, taskID, 0, record.KindURL, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record().UpdateDownload(ctx, dl, record.DownloadProgress{Status: record.DownloadDone, Path: path, Bytes: 1, Total: 1}); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = testNow
	return id, locals
}

// writeGradient writes a 160x90 PNG whose hue follows i.
func writeGradient(t testing.TB, path string, i int) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 160, 90))
	for y := range 90 {
		for x := range 160 {
			img.Set(x, y, color.NRGBA{uint8(40 * i), uint8(x), uint8(2 * y), 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// sheetModel is the root showing set id's contact sheet, its thumbnails
// decoded.
func sheetModel(t testing.TB, w, h, n int) (*Model, *studio.Studio, int64, []int64) {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	id, locals := sheetSet(t, s, clk, n)
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	send(m, openSheetMsg{setID: id})
	if m.sheet() == nil || len(m.sheet().cells) != n || len(m.sheet().thumbs) != n-2 {
		t.Fatalf("the sheet of %d: %+v\n%s", n, m.sheet(), screen(m))
	}
	return m, s, id, locals
}

// The contact sheet at both sizes: a picture per finished version, the
// running one's progress, the unsent one, seeds and values under each.
func TestContactSheetScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m, _, _, _ := sheetModel(t, size.w, size.h, 6)
			scr := screen(m)
			for _, want := range []string{"Set 1 · variations", "seed 1000", "✓ success", "version 1"} {
				if !strings.Contains(scr, want) {
					t.Fatalf("the sheet lacks %q:\n%s", want, scr)
				}
			}
			snapshot(t, m)
		})
	}
}

// Reached from a task's row (c): arrows move, space marks the keeper and
// history keeps it, x asks before discarding and n keeps the version,
// enter opens the detail and esc comes back to the sheet.
func TestContactSheetKeys(t *testing.T) {
	m, s, id, locals := sheetModel(t, 140, 40, 6)
	send(m, press("esc"))
	if m.sheet() != nil {
		t.Fatal("esc did not leave the sheet")
	}
	send(m, press("1"))
	tp := m.pages[pageTasks].(*tasksPage)
	for row, ok := tp.win.selected(); !ok || row.LocalID != locals[4]; row, ok = tp.win.selected() {
		send(m, press("j"))
	}
	if !strings.Contains(screen(m), "s1 a lighthouse at dusk") {
		t.Fatalf("a version's row does not name its set:\n%s", screen(m))
	}
	send(m, press("c"))
	if m.sheet() == nil || m.sheet().setID != id {
		t.Fatalf("c on a version's row did not open its set:\n%s", screen(m))
	}
	send(m, press("right"))
	send(m, press("l"))
	send(m, press("space"))
	ctx := context.Background()
	if info, err := s.Record().Set(ctx, id); err != nil || info.Keeper != 3 {
		t.Fatalf("the keeper in history: %+v, %v", info, err)
	}
	if !strings.Contains(screen(m), "★ keeper") || !strings.Contains(screen(m), "★ version 3 (seed=1002) is the keeper") {
		t.Fatalf("the keeper is not shown:\n%s", screen(m))
	}
	send(m, press("x"))
	if !strings.Contains(screen(m), "Discard version 3 (seed=1002)?") || !strings.Contains(screen(m), "saved file stays on") {
		t.Fatalf("x did not ask first:\n%s", screen(m))
	}
	if !strings.Contains(screen(m), "It is the keeper: the set is left with") {
		t.Fatalf("x on the keeper does not say the keeper goes:\n%s", screen(m))
	}
	send(m, press("n"))
	if len(m.sheet().cells) != 6 {
		t.Fatalf("n discarded anyway: %d cells", len(m.sheet().cells))
	}
	send(m, press("x"))
	send(m, press("y"))
	if len(m.sheet().cells) != 5 || strings.Contains(screen(m), "seed 1002") {
		t.Fatalf("y did not hide version 3:\n%s", screen(m))
	}
	members, _ := s.Record().SetMembers(ctx, id)
	if !members[2].Discarded {
		t.Fatalf("the discard is not in history: %+v", members)
	}
	if _, err := os.Stat(filepath.Join(s.Config.DataDir, "downloads", "812000000000000003.png")); err != nil {
		t.Fatalf("discarding deleted the saved file: %v", err)
	}
	send(m, press("h"))
	send(m, press("s"))
	if m.dialog() == nil || !strings.Contains(screen(m), "img2video") {
		t.Fatalf("s did not offer to send version 2 onward:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("enter"))
	if m.detail() == nil || m.detail().localID != locals[1] {
		t.Fatalf("enter did not open version 2's detail:\n%s", screen(m))
	}
	send(m, press("esc"))
	if m.detail() != nil || m.sheet() == nil || !strings.Contains(screen(m), "Set 1 · variations") {
		t.Fatalf("esc from the detail did not come back to the sheet:\n%s", screen(m))
	}
	// G goes to the last version (never sent: h, the one before it), g to
	// the first; enter opens it.
	for _, c := range []struct {
		keys []string
		want int64
	}{{[]string{"G", "h"}, locals[4]}, {[]string{"g"}, locals[0]}} {
		for _, k := range c.keys {
			send(m, press(k))
		}
		send(m, press("enter"))
		if m.detail() == nil || m.detail().localID != c.want {
			t.Fatalf("%v, enter did not open task #%d:\n%s", c.keys, c.want, screen(m))
		}
		send(m, press("esc"))
	}
}

// C lists the sets; enter opens one's sheet.
func TestSetsListOpensASheet(t *testing.T) {
	m, _, id, _ := sheetModel(t, 80, 24, 3)
	send(m, press("esc"))
	send(m, press("C"))
	if !strings.Contains(screen(m), "reference2image, 3 versions") {
		t.Fatalf("C did not list the set:\n%s", screen(m))
	}
	send(m, press("enter"))
	if m.sheet() == nil || m.sheet().setID != id {
		t.Fatalf("enter did not open the set's sheet:\n%s", screen(m))
	}
}

// v on the review asks how many versions (4 by default), shows the whole
// set's price and today's spending, and y sends four requests, each with
// its own seed, as one set whose sheet opens.
func TestReviewVariationsSendsASet(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p := showForm(t, m, api.OpReference2Image, "svcq2")
	send(m, press("tab"))
	send(m, pasteMsg("a lighthouse at dusk"))
	if !runUntil(m, nil, func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v\n%s", p.form.Check().Broken, screen(m))
	}
	send(m, ctrl('s'))
	send(m, press("v"))
	if !strings.Contains(screen(m), "Variations of this reference2image request") {
		t.Fatalf("v did not ask how many:\n%s", screen(m))
	}
	_, cmd := m.Update(press("enter"))
	if !runUntil(m, cmd, func() bool { return strings.Contains(screen(m), "Send 4 versions as a set?") }, 5*time.Second) {
		t.Fatalf("no confirmation of 4 versions:\n%s", screen(m))
	}
	if scr := screen(m); !strings.Contains(scr, "Cost: 16 credits for all 4") || !strings.Contains(scr, "Spent:") {
		t.Fatalf("the set's price or the spending is missing:\n%s", scr)
	}
	_, cmd = m.Update(press("y"))
	// The program's relay: each event of the studio becomes a message.
	var relay tea.Cmd
	relay = func() tea.Msg {
		select {
		case ev := <-s.Events():
			return tea.BatchMsg{func() tea.Msg { return studioEventMsg{ev} }, relay}
		case <-ctx.Done():
			return nil
		}
	}
	cmd = tea.Batch(cmd, relay)
	sent := func() bool {
		if m.sheet() == nil || len(m.sheet().cells) != 4 {
			return false
		}
		for _, c := range m.sheet().cells {
			if c.task == nil || c.task.TaskID == "" {
				return false
			}
		}
		return true
	}
	if !runUntil(m, cmd, sent, hangGuard) {
		members, _ := s.Record().SetMembers(ctx, m.sheet().setID)
		t.Fatalf("four versions were not sent as a set: %+v %+v\n%s", members, s.SetActivity(m.sheet().setID), screen(m))
	}
	ids, seeds := map[string]bool{}, map[string]bool{}
	for _, c := range m.sheet().cells {
		// The sandbox answers for each: it took four POSTs.
		if _, err := s.Service().Get(ctx, c.task.TaskID); err != nil {
			t.Fatalf("the sandbox does not know task %s: %v", c.task.TaskID, err)
		}
		ids[c.task.TaskID], seeds[c.seed] = true, true
		if !strings.Contains(screen(m), "seed "+c.seed) {
			t.Fatalf("seed %s is not on the sheet:\n%s", c.seed, screen(m))
		}
	}
	if len(ids) != 4 || len(seeds) != 4 {
		t.Fatalf("%d tasks, %d seeds; want 4 of each", len(ids), len(seeds))
	}
	page, _ := s.Record().Tasks(ctx, record.Filter{Operations: []api.Operation{api.OpReference2Image}})
	if n := len(page.Tasks); n != 4+1 { // the standard data holds one
		t.Fatalf("%d reference2image rows in history; want the 4 versions and the one seeded", n)
	}
}

// A batch shows as a set the same way: its lines by number and
// operation; a speech result has a cell without a picture, with its state.
func TestBatchShowsAsASet(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	ctx := context.Background()
	members := []record.SetMember{{Line: 2, Operation: api.OpAudioTTS}, {Line: 3, Operation: api.OpText2Video}}
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "sha", "lines.jsonl", members)
	if err != nil {
		t.Fatal(err)
	}
	local, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS, Body: []byte(`{"text":"hello","voice_id":"narrator_1"}`),
		Set: &record.SetLine{SetID: id, Line: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: "813000000000000001", Raw: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	u := record.Update{State: api.StateSuccess, Creations: record.CreationsFrom([]api.Creation{{ID: "0", URL: "http://127.0.0.1:1/a.wav"}}, testNow.Add(time.Hour))}
	if _, err := s.Record().ApplyResult(ctx, "813000000000000001", u); err != nil {
		t.Fatal(err)
	}
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m, m.Init())
	send(m, press("C"))
	if !strings.Contains(screen(m), "batch") || !strings.Contains(screen(m), "lines.jsonl") {
		t.Fatalf("the batch is not among the sets:\n%s", screen(m))
	}
	send(m, press("enter"))
	scr := screen(m)
	for _, want := range []string{"Set 1 · batch · lines.jsonl", "line 2 · hello", "audio-tts", "♪ audio", "✓ success", "line 3 ", "text2video", "– not sent"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the batch's sheet lacks %q:\n%s", want, scr)
		}
	}
	// A batch's cell names its operation and its line's prompt, not a
	// seed it never had.
	if strings.Contains(scr, "seed —") || strings.Contains(scr, "line 2 · audio-tts") {
		t.Fatalf("the batch's cells show a seed line or the operation twice:\n%s", scr)
	}
	if len(m.sheet().thumbNote) != 0 {
		t.Fatalf("a picture was sought for speech: %v", m.sheet().thumbNote)
	}
	// d queues the speech's download through the one downloader.
	send(m, press("d"))
	if dls, err := s.Record().Downloads(ctx, "813000000000000001"); err != nil || len(dls) == 0 || !strings.Contains(screen(m), "downloading the results of task 813000000000000001") {
		t.Fatalf("d did not queue the download: %v %v\n%s", dls, err, screen(m))
	}
	// o hands the saved file to the one opener, which refuses what is no
	// media (nothing is launched).
	evil := filepath.Join(t.TempDir(), "2026-11-26_audio-tts_813000000000000001_1.exe")
	if err := os.WriteFile(evil, []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	dl, err := s.Record().QueueDownload(ctx, "813000000000000001", 0, record.KindURL, evil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().UpdateDownload(ctx, dl, record.DownloadProgress{Status: record.DownloadDone, Path: evil, Bytes: 2, Total: 2}); err != nil {
		t.Fatal(err)
	}
	run(m, m.sheet().reload())
	send(m, press("o"))
	if !strings.Contains(screen(m), "not opened (not a video, picture or sound)") {
		t.Fatalf("o did not go through the opener:\n%s", screen(m))
	}
}

// Quitting while versions wait on our side asks first: they were never
// sent, and quitting leaves them so.
func TestQuitAsksWhileVersionsWait(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	reqs, err := studio.SeedVariations(api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "seven", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatal(err)
	}
	if s.SetsWaiting() == 0 {
		t.Fatal("no version waits here right after the start")
	}
	_, cmd := m.Update(press("q"))
	if cmd != nil || !strings.Contains(screen(m), "versions still waiting here?") {
		t.Fatalf("q did not ask first:\n%s", screen(m))
	}
	send(m, press("n"))
	if m.quitting || m.dialog() != nil {
		t.Fatal("n quit anyway")
	}
}

// A backend switch closes the sheet: its set is in the old backend's
// history, and the same number in the new one is another set.
func TestBackendSwitchClosesTheSheet(t *testing.T) {
	m, _, _, _ := sheetModel(t, 80, 24, 3)
	next := newTestStudioIn(t, &clock{t: testNow}, filepath.Join(testRoot, "switched-sheet"))
	send(m, studioOpenedMsg{s: next})
	if m.sheet() != nil || strings.Contains(screen(m), "Set 1 · variations") {
		t.Fatalf("the old backend's sheet is still shown:\n%s", screen(m))
	}
}

// At 80x24 a set of 6 shows two rows of smaller cells (not one row of three
// over a blank half screen), and ↓ from a column with nothing under it in
// the shorter last row goes to that row's last cell.
func TestContactSheetShortScreenTwoRowsAndDown(t *testing.T) {
	m, _, _, _ := sheetModel(t, 80, 24, 6)
	if per, rows := m.sheet().perRow(), m.sheet().rowsShown(); per != 4 || rows != 2 {
		t.Fatalf("80x24 lays out %d cells a row, %d rows; want 4 and 2\n%s", per, rows, screen(m))
	}
	scr := screen(m)
	for _, want := range []string{"version 1", "version 5", "version 6", "⠋ processing 40%"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the sheet at 80x24 lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "row more") {
		t.Fatalf("every version fits, yet more rows are promised:\n%s", scr)
	}
	send(m, press("right"))
	send(m, press("right"))
	send(m, press("down")) // from version 3: nothing under it in the row of 5 and 6
	if m.sheet().cursor != 5 {
		t.Fatalf("↓ from version 3 went to cell %d; want the last, version 6", m.sheet().cursor+1)
	}
	send(m, press("down"))
	if m.sheet().cursor != 5 {
		t.Fatalf("↓ on the last row moved to cell %d", m.sheet().cursor+1)
	}
	send(m, press("up"))
	if m.sheet().cursor != 1 {
		t.Fatalf("↑ from version 6 went to cell %d; want version 2", m.sheet().cursor+1)
	}
}

// A change marked while the sheet is open reloads it at the frame, with
// everything else marked then; marks before the frame read nothing.
func TestSheetReloadsAtTheFrame(t *testing.T) {
	useCountingDriver = true
	t.Cleanup(func() { useCountingDriver = false })
	m, s, _, _ := sheetModel(t, 140, 40, 4)
	if _, err := s.Record().ApplyResult(context.Background(), "812000000000000003", record.Update{State: api.StateFailed, ErrCode: "ContentModeration"}); err != nil {
		t.Fatal(err)
	}
	before := statements.Load()
	for range 3 {
		run(m, m.mark(changedTasks))
	}
	if got := statements.Load() - before; got != 0 {
		t.Errorf("three marks read %d statements before the frame, want none", got)
	}
	if strings.Contains(screen(m), "failed") {
		t.Fatalf("the sheet changed before the frame:\n%s", screen(m))
	}
	flushFrame(m)
	if !strings.Contains(screen(m), "failed") {
		t.Errorf("the sheet did not reload at the frame:\n%s", screen(m))
	}
}

// The sheet draws frames for the spinners of the cells on screen only: a
// version at work scrolled out of view is not drawn, so nothing ticks for
// it.
func TestSheetTicksOnlyForCellsOnScreen(t *testing.T) {
	m, _, _, _ := sheetModel(t, 80, 24, 12) // 8 cells fit; versions 11 and 12 wait below
	c := m.sheet()
	if d := c.tickEvery(); d != 0 {
		t.Fatalf("a tick every %s for versions out of view:\n%s", d, screen(m))
	}
	send(m, press("down"))
	send(m, press("down"))
	if !strings.Contains(screen(m), "processing 40%") || c.tickEvery() != spinnerStep {
		t.Errorf("scrolled to them: a tick every %s, want %s:\n%s", c.tickEvery(), spinnerStep, screen(m))
	}
}
