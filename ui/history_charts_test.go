package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// At 80x24 the charts skip days with nothing spent and scroll, so credits
// by model is reachable; the totals follow the search.
func TestHistoryChartsScrollAndTotalsFollowSearch(t *testing.T) {
	var extra []task
	for d := 2; d <= 12; d++ {
		extra = append(extra, task{api.OpText2Video, "svcq3-turbo", fmt.Sprintf(`{"model":"svcq3-turbo","prompt":"day %d"}`, d),
			fmt.Sprintf("8110000000000002%02d", d), api.StateSuccess, 10, "", testNow.Add(-time.Duration(d) * 24 * time.Hour), 0})
	}
	m, _ := newClockedModel(t, extra)
	send(m, press("5"))
	send(m, press("c"))
	got := screen(m)
	if !strings.Contains(got, "Credits by day") || regexp.MustCompile(`(?m)^[A-Z][a-z]{2} \d{2} +0 *$`).MatchString(got) {
		t.Errorf("the day chart shows days with nothing spent:\n%s", got)
	}
	if strings.Contains(got, "Credits by model") {
		t.Fatalf("the test needs a chart taller than the page:\n%s", got)
	}
	for range 20 {
		send(m, press("down"))
	}
	if got := screen(m); !strings.Contains(got, "Credits by model") || !strings.Contains(got, "svcq3-turbo") {
		t.Errorf("↓ does not reach credits by model:\n%s", got)
	}

	send(m, press("c"))
	send(m, press("/"))
	typeText(m, "fox")
	send(m, press("enter"))
	if got := screen(m); !strings.Contains(got, "40 credits spent on these") {
		t.Errorf("the totals do not follow the search:\n%s", got)
	}
}

// The day chart's line for the days that cost nothing names the span by
// its dates (it said "of the span"), whole where it does not fit beside
// them; days that cost something but fall past the fourteen drawn are
// said apart, not counted as costing nothing.
func TestHistoryChartNamesTheSpanOfItsIdleDays(t *testing.T) {
	var extra []task
	for d := 2; d <= 21; d++ {
		extra = append(extra, task{api.OpText2Video, "svcq3-turbo", fmt.Sprintf(`{"model":"svcq3-turbo","prompt":"day %d"}`, d),
			fmt.Sprintf("8110000000000003%02d", d), api.StateSuccess, 10, "", testNow.Add(-time.Duration(d) * 24 * time.Hour), 0})
	}
	m, _ := newClockedModel(t, extra)
	send(m, press("5"))
	send(m, press("/"))
	typeText(m, "from:2026-10-20")
	send(m, press("enter"))
	send(m, press("c"))
	if got := screen(m); !strings.Contains(got, "  8 earlier days with credits not drawn\nNov 13 ") {
		t.Errorf("the days past the fourteen drawn:\n%s", got)
	}
	for range 20 {
		send(m, press("down"))
	}
	if got := screen(m); !strings.Contains(got, "  16 other days of Oct 20–Nov 26: nothing spent\n") {
		t.Errorf("at 80 columns:\n%s", got)
	}
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	if got := screen(m); !regexp.MustCompile(`│   16 other days of Oct 20–Nov 26: *\n.*│   nothing spent`).MatchString(got) {
		t.Errorf("beside the list, the dates kept whole:\n%s", got)
	}
}
