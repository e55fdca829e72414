package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"clapper/api"
	"clapper/record"
)

// The version a contact sheet keeps carries the sheet's star on its Tasks
// and History rows, beside its set (s1), at 80 and 140 columns; History
// finds it by is:keeper, while a bare keeper is a word of the prompts.
func TestKeeperAndSetShowOnRows(t *testing.T) {
	for _, w := range []int{80, 140} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m, _, _, _ := sheetModel(t, w, 30, 6)
			send(m, press("right"))
			send(m, press("space")) // version 2 is the keeper
			send(m, press("esc"))
			send(m, press("1"))
			scr := screen(m)
			if strings.Count(scr, "★s1 ") != 1 || strings.Count(scr, " s1 ") < 2 {
				t.Fatalf("the keeper's row must show ★s1, the others s1:\n%s", scr)
			}
			send(m, press("5"))
			if scr := screen(m); !strings.Contains(scr, "tag:") || !strings.Contains(scr, "is:keeper") {
				t.Fatalf("History's hint must name tag: and is:keeper:\n%s", scr)
			}
			send(m, press("/"))
			typeText(m, "keeper") // a word of prompts ("a lighthouse keeper"), not the star
			send(m, press("enter"))
			if scr := screen(m); strings.Contains(scr, "★s1 ") {
				t.Fatalf("a bare keeper searches the prompts:\n%s", scr)
			}
			send(m, press("/"))
			for range len("keeper") {
				send(m, press("backspace"))
			}
			typeText(m, "is:keeper")
			send(m, press("enter"))
			scr = screen(m)
			if strings.Count(scr, "★s1 ") != 1 || strings.Contains(scr, " s1 ") {
				t.Fatalf("History's is:keeper must list the keeper alone, starred:\n%s", scr)
			}
		})
	}
}

// G and g reach the ends of the sets list, as in every list.
func TestSetsListEnds(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	var ids []int64
	for _, name := range []string{"oldest set", "newest set"} {
		members := []record.SetMember{{Line: 1, Operation: api.OpReference2Image, Label: "seed=1"}, {Line: 2, Operation: api.OpReference2Image, Label: "seed=2"}}
		id, _, err := s.Record().OpenSet(context.Background(), record.SetVariations, "", name, members)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	send(m, press("C"))
	send(m, press("G"))
	send(m, press("enter"))
	if m.sheet() == nil || m.sheet().setID != ids[0] {
		t.Fatalf("G then enter must open the oldest set:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("C"))
	send(m, press("G"))
	send(m, press("g"))
	send(m, press("enter"))
	if m.sheet() == nil || m.sheet().setID != ids[1] {
		t.Fatalf("g then enter must open the newest set:\n%s", screen(m))
	}
}
