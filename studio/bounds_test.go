package studio

import (
	"context"
	"errors"

	"os"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// Every range a setting has is taken at its bound and refused one step
// past it, naming the setting: a bound written > for >= fails here.
func TestSettingRangesAtTheirBounds(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" when the value is taken
	}{
		{"sandbox speed 1 (real time)", Config{SandboxSpeed: 1}, ""},
		{"sandbox speed under 1", Config{SandboxSpeed: 0.999}, "sandbox speed 0.999 is out of range"},
		{"sandbox speed 3600", Config{SandboxSpeed: 3600}, ""},
		{"sandbox speed past 3600", Config{SandboxSpeed: 3600.5}, "sandbox speed 3600.5 is out of range"},
		{"request budget 0.5", Config{RequestBudget: 0.5}, ""},
		{"request budget under 0.5", Config{RequestBudget: 0.49}, "request budget 0.49 is out of range"},
		{"request budget 20", Config{RequestBudget: 20}, ""},
		{"request budget past 20", Config{RequestBudget: 20.01}, "request budget 20.01 is out of range"},
		{"timeout 1s", Config{Timeout: time.Second}, ""},
		{"timeout under 1s", Config{Timeout: 999 * time.Millisecond}, "timeout 999ms is too short"},
		{"agent cap 0 (none)", Config{AgentCreditCap: 0}, ""},
		{"agent cap -1", Config{AgentCreditCap: -1}, "agent credit cap -1 is negative"},
		{"daily cap -1", Config{DailyCreditCap: -1}, "credit caps -1 a day, 0 a month"},
		{"monthly cap -1", Config{MonthlyCreditCap: -1}, "credit caps 0 a day, -1 a month"},
	} {
		c.cfg.DataDir = t.TempDir()
		err := c.cfg.Resolve()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !IsUsage(err) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a usage error with %q", c.name, err, c.want)
		}
	}
}

// A credit cap is a whole number of credits, 0 or off for none.
func TestParseCreditCapBounds(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "off": 0, "1": 1, "250": 250} {
		if n, err := ParseCreditCap(in); err != nil || n != want {
			t.Errorf("ParseCreditCap(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"-1", "1.5", "", "ten"} {
		if _, err := ParseCreditCap(in); err == nil {
			t.Errorf("ParseCreditCap(%q) taken", in)
		}
	}
}

// capStore is a history holding one task of 100 credits sent today.
func capStore(t *testing.T, now time.Time, origin record.Origin) *history.Store {
	t.Helper()
	ctx := context.Background()
	store, err := history.Open(t.TempDir()+"/h.db", history.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	id, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`), Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "t1", Credits: 100}); err != nil {
		t.Fatal(err)
	}
	return store
}

// A send that brings the spending exactly to a cap is allowed; a credit
// more is refused. Spending already at the cap refuses a send whose price
// is unknown, and spending a credit under it does not.
func TestSpendCapIsReachedNotPassed(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.Local)
	s := &Studio{store: capStore(t, now, record.OriginTUI), opts: Options{Clock: func() time.Time { return now }}}
	for _, c := range []struct {
		daily, monthly int64
		price          Price
		refused        string // the period refused, "" for none
	}{
		{150, 0, Price{Credits: 50, Known: true}, ""},
		{150, 0, Price{Credits: 51, Known: true}, "day"},
		{0, 150, Price{Credits: 50, Known: true}, ""},
		{0, 150, Price{Credits: 51, Known: true}, "month"},
		{100, 0, Price{Text: "unknown"}, "day"},
		{101, 0, Price{Text: "unknown"}, ""},
		{0, 100, Price{Text: "unknown"}, "month"},
		{0, 101, Price{Text: "unknown"}, ""},
	} {
		s.Config.DailyCreditCap, s.Config.MonthlyCreditCap = c.daily, c.monthly
		err := s.CheckSpendCaps(ctx, c.price, "")
		var ce *CapError
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("caps %d/day %d/month, 100 spent, price %+v: refused: %v", c.daily, c.monthly, c.price, err)
		case c.refused != "" && (!errors.As(err, &ce) || ce.Period != c.refused || ce.Spent != 100):
			t.Errorf("caps %d/day %d/month, 100 spent, price %+v: %v, want the %s's cap", c.daily, c.monthly, c.price, err, c.refused)
		}
	}
}

// The agent cap counts only agent tasks: 100 credits of agent work today
// and a cap of 150 take a 50-credit agent send and refuse a 51-credit one,
// naming the agent cap.
func TestAgentCapIsReachedNotPassed(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.Local)
	s := &Studio{Config: Config{AgentCreditCap: 150}, store: capStore(t, now, record.OriginMCP), opts: Options{Clock: func() time.Time { return now }}}
	if err := s.CheckAgentCap(ctx, Price{Credits: 50, Known: true}); err != nil {
		t.Errorf("an agent send reaching the cap: %v", err)
	}
	var ce *CapError
	err := s.CheckAgentCap(ctx, Price{Credits: 51, Known: true})
	if !errors.As(err, &ce) || ce.Scope != "agent work" || !strings.Contains(err.Error(), "daily credit cap for agent work is 150 credits and agent tasks have cost 100 credits today; this request costs 51 more") {
		t.Errorf("an agent send passing the cap: %v", err)
	}
	// The TUI's own tasks do not count against the agents' cap.
	s.store = capStore(t, now, record.OriginTUI)
	if err := s.CheckAgentCap(ctx, Price{Credits: 140, Known: true}); err != nil {
		t.Errorf("the TUI's spending counted against the agent cap: %v", err)
	}
}

// A key of up to eight characters shows nothing of itself; a longer one
// its last four.
func TestMaskKeyShowsNothingOfAShortKey(t *testing.T) {
	for key, want := range map[string]string{
		"":          "",
		"abcdefgh":  "••••••••",
		"abcdefghi": "••••••••fghi",
		"ключ-1234": "••••••••1234", // runes, not bytes
	} {
		if got := MaskKey(key); got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// A remembered port that is no port (0, past 65535) is not used: the
// sandbox takes a free one and remembers it in its place.
func TestSandboxPortFileOutOfRangeIsReplaced(t *testing.T) {
	for _, bad := range []string{"0", "65536", "-80", "http"} {
		isolate(t)
		cfg := Config{DataDir: t.TempDir()}
		if err := cfg.Resolve(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg.SandboxPortPath(), []byte(bad+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), cfg, Options{SendOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(cfg.SandboxPortPath())
		base := s.client.BaseURL()
		s.Close()
		if port := strings.TrimSpace(string(b)); port == bad || !strings.HasSuffix(strings.TrimRight(base, "/"), ":"+port) {
			t.Errorf("a port file holding %q: the sandbox serves at %s and the file holds %q", bad, base, port)
		}
	}
}

// Where nothing gives a value, the defaults hold: the data folder under
// $XDG_DATA_HOME, the theme auto, uploads auto; a data folder or an
// uploads mode given is kept.
func TestResolveDefaultsAndKeeps(t *testing.T) {
	isolate(t)
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	var c Config
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.DataDir != xdg+"/clapper" || c.Theme != "auto" || c.Uploads != UploadAuto || c.Timeout != DefaultTimeout {
		t.Errorf("defaults: data %s, theme %s, uploads %s, timeout %s", c.DataDir, c.Theme, c.Uploads, c.Timeout)
	}
	if _, err := SaveSettings(Settings{Uploads: UploadNever, Theme: "light"}); err != nil {
		t.Fatal(err)
	}
	c = Config{DataDir: "/given", Theme: "dark"}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/given" || c.Uploads != UploadNever || c.Theme != "dark" {
		t.Errorf("given data folder /given, saved uploads never, flag theme dark: data %s, uploads %s, theme %s", c.DataDir, c.Uploads, c.Theme)
	}
	if _, err := SaveSettings(Settings{Uploads: "sometimes"}); err != nil {
		t.Fatal(err)
	}
	c = Config{DataDir: "/given"}
	if err := c.Resolve(); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), `uploads "sometimes"`) {
		t.Errorf("uploads sometimes: %v", err)
	}
}

// A refusal names the cap, what was spent, what the send costs when it is
// known, and when the cap resets; the spending line shows a cap only when
// one is set.
func TestCapRefusalAndSpendingLineSayIt(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.Local)
	s := &Studio{store: capStore(t, now, record.OriginTUI), opts: Options{Clock: func() time.Time { return now }}}
	for _, c := range []struct {
		daily, monthly int64
		price          Price
		want           string
	}{
		{100, 0, Price{Text: "unknown"}, "not sent: the daily credit cap is 100 credits and tasks have cost 100 credits today (the cap is the Settings page's daily credit cap, --daily-cap or CLAPPER_DAILY_CREDIT_CAP; it resets at local midnight)"},
		{0, 120, Price{Credits: 30, Known: true}, "not sent: the monthly credit cap is 120 credits and tasks have cost 100 credits this month; this request costs 30 more (the cap is the Settings page's monthly credit cap, --monthly-cap or CLAPPER_MONTHLY_CREDIT_CAP; it resets at the first of the month)"},
	} {
		s.Config.DailyCreditCap, s.Config.MonthlyCreditCap = c.daily, c.monthly
		if err := s.CheckSpendCaps(ctx, c.price, ""); err == nil || err.Error() != c.want {
			t.Errorf("refusal:\n got %v\nwant %s", err, c.want)
		}
	}
	s.Config.DailyCreditCap, s.Config.MonthlyCreditCap = 0, 0
	if spent, over := s.SpendingFor(ctx, Price{Credits: 30, Known: true}, ""); spent != "100 credits today · 100 credits this month" || over != "" {
		t.Errorf("no caps: spent %q, over %q", spent, over)
	}
}
