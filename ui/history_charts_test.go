package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

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
