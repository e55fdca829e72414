package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
)

// The contact sheet's help offers ↑/↓ only when the sheet has more than
// one row of versions, and ←/→ only over more than one version: at 80
// columns a set of four is one row, and ↑/↓ moved nothing (found driving
// a set of variations).
func TestSheetHelpOffersUpDownOnlyOverRows(t *testing.T) {
	for _, c := range []struct {
		versions          int
		upDown, leftRight bool
	}{{1, false, false}, {4, false, true}, {6, true, true}} {
		clk := &clock{t: testNow}
		s := newTestStudio(t, clk)
		sheetSet(t, s, clk, c.versions)
		tm := runningOn(t, New(s, clk.now, nil), 80, 24)
		tm.Send(press("C"))
		waitScreen(t, tm, "versions")
		tm.Send(press("enter"))
		waitScreen(t, tm, "version 1")
		tm.Send(press("?"))
		waitScreen(t, tm, "Keys: contact sheet")
		tm.Send(press("q"))
		tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
		got := screen(tm.FinalModel(t).(*Model))
		if strings.Contains(got, "↑/k up") != c.upDown || strings.Contains(got, "↓/j down") != c.upDown ||
			strings.Contains(got, "←/h left") != c.leftRight || strings.Contains(got, "G     last") != c.leftRight {
			t.Errorf("%d versions at 80x24: ↑/↓ offered should be %v, ←/→ %v:\n%s", c.versions, c.upDown, c.leftRight, got)
		}
	}
}

// A sound's cell on the contact sheet says what o does as it will: play
// the saved file, or, with nothing saved yet, that d saves it, or of a
// .bin that it is not opened (every sound's cell said "o plays it").
func TestSheetSoundCellSaysWhatOWillDo(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	ctx := context.Background()
	var members []record.SetMember
	for i, text := range []string{"hello", "goodbye", "odd"} {
		members = append(members, record.SetMember{Line: i + 1, Operation: api.OpAudioTTS, Label: "text=" + text})
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "audio-tts, 3 versions", members)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"hello", "goodbye", "odd"} {
		local, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS, Body: []byte(`{"text":"` + text + `","voice_id":"narrator_1"}`),
			Origin: record.OriginTUI, Set: &record.SetLine{SetID: id, Line: i + 1}})
		if err != nil {
			t.Fatal(err)
		}
		taskID := fmt.Sprintf("81300000000000000%d", i+1)
		if err := s.Record().MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: taskID, Credits: 1, Raw: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		u := record.Update{State: api.StateSuccess, Credits: 1, Creations: record.CreationsFrom([]api.Creation{{ID: "0", URL: "http://127.0.0.1:1/" + taskID + ".wav"}}, testNow.Add(24*time.Hour))}
		if _, err := s.Record().ApplyResult(ctx, taskID, u); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			continue // goodbye is not saved
		}
		savedResult(t, s, taskID, filepath.Join(t.TempDir(), taskID+map[bool]string{true: ".bin", false: ".wav"}[text == "odd"]), "RIFF")
	}
	tm := runningOn(t, New(s, clk.now, nil), 80, 24)
	tm.Send(press("C"))
	waitScreen(t, tm, "3 versions")
	tm.Send(press("enter"))
	waitScreen(t, tm, "version 3")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	if strings.Count(got, "♪ audio: o plays it") != 1 || strings.Count(got, "♪ audio: d saves it") != 1 || strings.Count(got, "♪ audio: not opened") != 1 {
		t.Fatalf("one sound is saved, one is not, one is a .bin:\n%s", got)
	}
}
