package ui

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
)

// A video whose cover cannot be fetched and whose file was saved as .bin
// (the service sent a type clapper does not know): the preview's note and
// d's answer say where it is and that it is not opened, as o refuses it;
// they offered "o opens it".
func TestAFileOfUnknownKindIsNotOfferedToO(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	ctx := context.Background()
	const id = "811000000000000040"
	seed(t, s, clk, []task{{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an odd otter"}`, id, api.StateSuccess, 40, "", testNow.Add(-time.Hour), 0}})
	// Its cover is at an address that does not answer.
	cs := []api.Creation{{ID: "0", URL: "http://127.0.0.1:1/otter.mp4", CoverURL: "http://127.0.0.1:1/otter.jpg"}}
	if _, err := s.Record().ApplyResult(ctx, id, record.Update{State: api.StateSuccess, Credits: 40, Creations: record.CreationsFrom(cs, testNow.Add(23*time.Hour))}); err != nil {
		t.Fatal(err)
	}
	saved := savedResult(t, s, id, filepath.Join(t.TempDir(), "otter.bin"), "?")
	tm := runningOn(t, New(s, clk.now, nil), 140, 40)
	waitScreen(t, tm, "an odd otter")
	tm.Send(press("enter"))
	waitScreen(t, tm, "No preview")
	tm.Send(press("d"))
	waitScreen(t, tm, "already saved")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	// The note is the right-hand pane; the path wraps where it must:
	// compare the pane's text and the status line without spaces.
	var pane []string
	col := -1
	for _, line := range strings.Split(got, "\n") {
		r := []rune(line)
		if i := strings.Index(line, "No preview"); col < 0 && i >= 0 {
			col = len([]rune(line[:i]))
		}
		if col >= 0 && len(r) > col {
			pane = append(pane, string(r[col:]))
		}
	}
	note := strings.Join(strings.Fields(strings.Join(pane, " ")), "")
	if strings.Contains(note, "oopensit") || strings.Contains(got, "o opens it") {
		t.Errorf("a .bin file is offered to o, which refuses it:\n%s", got)
	}
	if want := "The result is saved at " + saved + " but not opened: its kind is unknown."; !strings.Contains(note, strings.Join(strings.Fields(want), "")) {
		t.Errorf("the preview's note lacks %q:\n%s", want, got)
	}
	if want := "already saved: " + saved + " (not opened: its kind is unknown)"; !strings.Contains(got, want) {
		t.Errorf("d's answer lacks %q:\n%s", want, got)
	}
}

// o where no desktop opener is installed (a server, a container) says
// what is missing, not exec's words ("exec: \"xdg-open\": executable file
// not found in $PATH").
func TestOpenWithoutADesktopOpenerSaysWhy(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	const id = "811000000000000041"
	seed(t, s, clk, []task{{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"a plain otter"}`, id, api.StateSuccess, 40, "", testNow.Add(-time.Hour), 1}})
	saved := savedResult(t, s, id, filepath.Join(t.TempDir(), "otter.mp4"), "mp4")
	tm := runningOn(t, New(s, clk.now, nil), 140, 40)
	waitScreen(t, tm, "a plain otter")
	tm.Send(press("enter"))
	waitScreen(t, tm, "Timeline")
	tm.Send(press("o"))
	waitScreen(t, tm, "could not open")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	// The status line's text (the line cuts it at 140 columns: ! shows it).
	got := tm.FinalModel(t).(*Model).lastStatus
	if want := "could not open " + saved + ": nothing here opens files or links (xdg-open is not installed)"; runtime.GOOS == "linux" && got != want {
		t.Fatalf("o without an opener says %q, want %q", got, want)
	}
}

// An audio result's note says what o does as it will: play the saved
// file, or, with nothing saved yet, that d saves it first (it promised
// "o plays the saved file" where o was not offered), or that a file of a
// kind o refuses is not played.
func TestAudioNoteSaysWhatOWillDo(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, []task{
		{api.OpAudioTTS, "", `{"text":"an unsaved hello","voice_id":"narrator_1"}`, "811000000000000042", api.StateSuccess, 1, "", testNow.Add(-2 * time.Hour), 1},
		{api.OpAudioTTS, "", `{"text":"an odd hello","voice_id":"narrator_1"}`, "811000000000000043", api.StateSuccess, 1, "", testNow.Add(-time.Hour), 1},
	})
	savedResult(t, s, "811000000000000043", filepath.Join(t.TempDir(), "hello.bin"), "?")
	tm := runningOn(t, New(s, clk.now, nil), 140, 40)
	waitScreen(t, tm, "an unsaved hello")
	tm.Send(press("G")) // the older: nothing saved
	tm.Send(press("enter"))
	waitScreen(t, tm, "d saves it,") // then o plays it
	tm.Send(press("esc"))
	tm.Send(press("g")) // the newer: saved as .bin
	tm.Send(press("enter"))
	waitScreen(t, tm, "not opened")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	if got := screen(tm.FinalModel(t).(*Model)); strings.Contains(got, "o plays") {
		t.Fatalf("a .bin sound is offered to o:\n%s", got)
	}
}
