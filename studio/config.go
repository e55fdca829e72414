// Package studio is one running backend of clapper, as a set of verbs for
// every front end (the TUI, the CLI and the MCP server). Its parts (the
// service client, live or the embedded sandbox; the history of that
// backend; the tracker, the watcher, the downloader and the callback
// receiver) are unexported, started and stopped in one place: no screen,
// command or tool builds a client, opens a database or imports track.
//
// The verbs: Prepare (the one preparation path and size rule), Send and
// SendFrom, Await and AwaitAll (the one event loop: one relay feeds the
// TUI's Events, the running sets and every stream), SaveResults and Settle
// (the one download policy: files named by the task's creation day), sets
// and batches (NewSetRun, StartSet), and Record, the record's role
// interfaces (clapper/record) that a second backend implements too.
//
// Each backend keeps its own history: the sandbox's is history.db in the
// data directory (where clapper has always kept it), and each live service
// has live-<host>.db beside it. Switching to a real key therefore never
// mixes simulated tasks into a real history, and switching back finds the
// sandbox's tasks as they were.
//
// Configuration comes, strongest first, from flags, the environment, the
// settings file (settings.json in the user's config directory, mode 0600,
// written by the TUI's Settings page) and defaults. The API key is the
// exception the TUI depends on: CLAPPER_API_KEY wins over the file, so a key
// set for one shell is never overwritten by a saved one.
package studio

import (
	"clapper/history"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Config is what a studio needs to reach the service and its history.
type Config struct {
	BaseURL string
	APIKey  string
	DataDir string
	Timeout time.Duration
	// CallbackListen is a loopback address where the callback receiver
	// listens; CallbackURL is the public URL the service calls, which must
	// reach it (a tunnel or a reverse proxy).
	CallbackListen string
	CallbackURL    string
	// SandboxSpeed divides the embedded sandbox's simulated durations: 1 is
	// real time, 60 makes a minute of generation pass in a second.
	SandboxSpeed float64
	// DownloadDir overrides where results are saved ("" picks by media).
	DownloadDir string
	// AutoDownload saves results as soon as a task the TUI follows succeeds.
	AutoDownload bool
	// RequestBudget is the watcher's reads per second, all tasks together.
	RequestBudget float64
	// Theme is "auto" (ask the terminal), "dark" or "light".
	Theme string
	// AgentCreditCap bounds the credits tasks started by AI agents
	// (clapper mcp) may cost per local calendar day; 0 is no cap.
	AgentCreditCap int64
	// DailyCreditCap and MonthlyCreditCap bound what every task sent from
	// this history (any front end) may cost per local calendar day and
	// month; 0 is no cap. The CLI refuses a send past one unless
	// --over-cap; the TUI asks.
	DailyCreditCap, MonthlyCreditCap int64
	// Uploads is when local images are uploaded rather than inlined.
	Uploads string

	// APIKeySource and BaseURLSource say where the key and the service
	// address came from, so the Settings page can say so.
	APIKeySource, BaseURLSource Source
	// Saved is what the settings file held. The Settings page writes it
	// back with only what was typed on the page changed, so a value that
	// came from a flag or the environment never lands in the file.
	Saved Settings
	// Warnings are what resolving found worth telling (a settings file
	// made private, a catalog file not used); front ends show them.
	Warnings []string
	// Catalog is the user's catalog file (--catalog); "" is catalog.json
	// in the config directory when it exists.
	Catalog string
	// HistoryURL, when set, is a team's shared history: a postgres:// or
	// postgresql:// URL; "" keeps the history file in DataDir.
	// HistoryURLGiven says the flag was given (--history-url "" chooses
	// the history file over the environment and the settings file).
	HistoryURL       string
	HistoryURLGiven  bool
	HistoryURLSource Source
	// MediaRoots are the folders an AI agent (clapper mcp) may have local
	// files read from, beside the download folders: the settings file's,
	// then --media-root's.
	MediaRoots []string
	// AgentConfirmAbove is the price in credits past which an agent's send
	// asks the person first (0: the price alone never asks);
	// AgentConfirmAboveGiven says a flag set it. AgentUnconfirmed lets a
	// send that should ask go on when the agent's client cannot ask.
	AgentConfirmAbove      int64
	AgentConfirmAboveGiven bool
	AgentUnconfirmed       bool
}

// Source is where a setting's value came from.
type Source int

const (
	FromDefault Source = iota
	FromFile
	FromEnvironment
	FromFlag
)

func (s Source) String() string {
	return [...]string{"default", "settings file", "environment", "flag"}[s]
}

// Environment variables clapper reads.
const (
	EnvBaseURL          = "CLAPPER_BASE_URL"
	EnvAPIKey           = "CLAPPER_API_KEY"
	EnvDataDir          = "CLAPPER_DATA_DIR"
	EnvCallbackListen   = "CLAPPER_CALLBACK_LISTEN"
	EnvCallbackURL      = "CLAPPER_CALLBACK_URL"
	EnvSandboxSpeed     = "CLAPPER_SANDBOX_SPEED"
	EnvConfigDir        = "CLAPPER_CONFIG_DIR"
	EnvAgentCreditCap   = "CLAPPER_AGENT_CREDIT_CAP"
	EnvDailyCreditCap   = "CLAPPER_DAILY_CREDIT_CAP"
	EnvMonthlyCreditCap = "CLAPPER_MONTHLY_CREDIT_CAP"
	EnvHistoryURL       = "CLAPPER_HISTORY_URL"
	EnvAgentConfirm     = "CLAPPER_AGENT_CONFIRM_ABOVE"
)

// Defaults of the settings a user may leave unset.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultRequestBudget = 4.0
	DefaultSandboxSpeed  = 1.0
	MaxSandboxSpeed      = 3600.0
	// DefaultAgentConfirmAbove asks before an agent's send of more than a
	// few ordinary videos' worth of credits.
	DefaultAgentConfirmAbove = 100
)

// Themes the Settings page offers.
var Themes = []string{"auto", "dark", "light"}

// UsageError is a configuration the user must change: nothing was sent.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Resolve fills what flags left unset from the environment, the settings
// file and the defaults, and checks that the result makes sense. Unset
// means the zero value, so a flag given its zero value counts as unset.
func (c *Config) Resolve() error {
	s, warnings, err := LoadSettings()
	if err != nil {
		return err
	}
	c.Warnings = warnings
	return c.resolveWith(s)
}

func (c *Config) resolveWith(s Settings) error {
	c.Saved = s
	pick := func(dst *string, env, saved string) Source {
		switch {
		case *dst != "":
			return FromFlag
		case os.Getenv(env) != "":
			*dst = os.Getenv(env)
			return FromEnvironment
		case saved != "":
			*dst = saved
			return FromFile
		}
		return FromDefault
	}
	c.APIKeySource = pick(&c.APIKey, EnvAPIKey, s.APIKey)
	c.BaseURLSource = pick(&c.BaseURL, EnvBaseURL, s.BaseURL)
	pick(&c.DataDir, EnvDataDir, "")
	if c.HistoryURLGiven {
		c.HistoryURLSource = FromFlag
	} else {
		c.HistoryURLSource = pick(&c.HistoryURL, EnvHistoryURL, s.HistoryURL)
	}
	pick(&c.CallbackListen, EnvCallbackListen, "")
	pick(&c.CallbackURL, EnvCallbackURL, "")
	if c.DownloadDir == "" {
		c.DownloadDir = s.DownloadDir
	}
	// No flag sets it: the saved choice, on unless turned off.
	c.AutoDownload = s.AutoDownload == nil || *s.AutoDownload
	if c.RequestBudget == 0 {
		c.RequestBudget = s.RequestBudget
	}
	if c.RequestBudget == 0 {
		c.RequestBudget = DefaultRequestBudget
	}
	if c.Theme == "" {
		c.Theme = s.Theme
	}
	if c.Theme == "" {
		c.Theme = "auto"
	}
	if c.Uploads == "" {
		c.Uploads = s.Uploads
	}
	if c.Uploads == "" {
		c.Uploads = UploadAuto
	}
	if !slices.Contains(UploadModes, c.Uploads) {
		return &UsageError{fmt.Sprintf("uploads %q in the settings file is not one of %s", c.Uploads, strings.Join(UploadModes, ", "))}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	for _, cp := range []struct {
		value *int64
		env   string
		saved int64
	}{{&c.AgentCreditCap, EnvAgentCreditCap, s.AgentCreditCap},
		{&c.DailyCreditCap, EnvDailyCreditCap, s.DailyCreditCap},
		{&c.MonthlyCreditCap, EnvMonthlyCreditCap, s.MonthlyCreditCap}} {
		if *cp.value != 0 {
			continue
		}
		*cp.value = cp.saved
		if v := os.Getenv(cp.env); v != "" {
			n, err := ParseCreditCap(v)
			if err != nil {
				return &UsageError{fmt.Sprintf("%s=%q: %v", cp.env, v, err)}
			}
			*cp.value = n
		}
	}
	if err := c.resolveAgent(s); err != nil {
		return err
	}
	if c.SandboxSpeed == 0 {
		if v := os.Getenv(EnvSandboxSpeed); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return &UsageError{fmt.Sprintf("%s=%q is not a number; give a speed from 1 (real time) to %g", EnvSandboxSpeed, v, MaxSandboxSpeed)}
			}
			c.SandboxSpeed = f
		}
	}
	if c.SandboxSpeed == 0 {
		c.SandboxSpeed = s.SandboxSpeed
	}
	if c.SandboxSpeed == 0 {
		c.SandboxSpeed = DefaultSandboxSpeed
	}
	if c.DataDir == "" {
		d, err := DefaultDataDir()
		if err != nil {
			return err
		}
		c.DataDir = d
	}
	if st, err := os.Stat(c.DataDir); err == nil && st.IsDir() && st.Mode().Perm()&0o002 != 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("data directory %s can be written by anyone (mode %04o): another user could replace the history or plant files among your results; chmod 700 it",
			c.DataDir, st.Mode().Perm()))
	}
	return c.Check()
}

// ParseMediaRoots reads folders as the Settings page takes them, joined
// by the system's list separator: each must be a folder that exists (a
// leading ~ is the home folder). Empty is none.
func ParseMediaRoots(v string) ([]string, error) {
	var roots []string
	for _, r := range filepath.SplitList(v) {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(r, "~"); ok && (rest == "" || rest[0] == filepath.Separator) {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, fmt.Errorf("%s: no home folder to start from", r)
			}
			r = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("%s: give a full path (or one from ~)", r)
		}
		st, err := os.Stat(r)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder here", r)
		}
		roots = append(roots, filepath.Clean(r))
	}
	return roots, nil
}

// resolveAgent fills what an AI agent may do: the folders it may read,
// when its sends ask first, and whether they may go on unasked.
func (c *Config) resolveAgent(s Settings) error {
	c.MediaRoots = append(slices.Clone(s.AgentMediaRoots), c.MediaRoots...)
	c.AgentUnconfirmed = c.AgentUnconfirmed || s.AgentUnconfirmed
	if c.AgentConfirmAboveGiven {
		return nil
	}
	c.AgentConfirmAbove = DefaultAgentConfirmAbove
	if s.AgentConfirmAbove != nil {
		c.AgentConfirmAbove = *s.AgentConfirmAbove
	}
	if v := os.Getenv(EnvAgentConfirm); v != "" {
		n, err := ParseCreditCap(v)
		if err != nil {
			return &UsageError{fmt.Sprintf("%s=%q: %v", EnvAgentConfirm, v, err)}
		}
		c.AgentConfirmAbove = n
	}
	return nil
}

// Check reports the first setting that cannot work, naming it.
func (c *Config) Check() error {
	if (c.CallbackListen == "") != (c.CallbackURL == "") {
		return &UsageError{"callbacks need both --callback-listen (where clapper listens) and --callback-url (the public URL the service calls)"}
	}
	if c.APIKey != "" && c.BaseURL == "" {
		return &UsageError{fmt.Sprintf("an API key is set but no service address: give --base-url or %s", EnvBaseURL)}
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &UsageError{fmt.Sprintf("service address %q is not an http(s) URL such as https://api.example.com", c.BaseURL)}
		}
	}
	if c.SandboxSpeed < 1 || c.SandboxSpeed > MaxSandboxSpeed {
		return &UsageError{fmt.Sprintf("sandbox speed %g is out of range: give 1 (real time) to %g", c.SandboxSpeed, MaxSandboxSpeed)}
	}
	if c.RequestBudget < 0.5 || c.RequestBudget > 20 {
		return &UsageError{fmt.Sprintf("request budget %g is out of range: give 0.5 to 20 reads per second", c.RequestBudget)}
	}
	if c.AgentConfirmAbove < 0 {
		return &UsageError{fmt.Sprintf("agent confirm-above %d is negative: give a whole number of credits, 0 (or off) to ask only near a cap", c.AgentConfirmAbove)}
	}
	if c.AgentCreditCap < 0 {
		return &UsageError{fmt.Sprintf("agent credit cap %d is negative: give a whole number of credits per day, 0 for no cap", c.AgentCreditCap)}
	}
	if c.DailyCreditCap < 0 || c.MonthlyCreditCap < 0 {
		return &UsageError{fmt.Sprintf("credit caps %d a day, %d a month: give whole numbers of credits, 0 for no cap", c.DailyCreditCap, c.MonthlyCreditCap)}
	}
	if c.HistoryURL != "" && !history.IsTeamURL(c.HistoryURL) {
		return &UsageError{fmt.Sprintf("history URL %s is not a PostgreSQL URL: give postgres://USER:PASSWORD@HOST:PORT/DATABASE, or \"\" for the history file", history.Redact(c.HistoryURL))}
	}
	if c.Timeout < time.Second {
		return &UsageError{fmt.Sprintf("timeout %s is too short: give at least 1s", c.Timeout)}
	}
	return nil
}

// Runs reports whether a studio on c runs just as one on o: they differ
// at most in the theme and in what the settings file holds or where
// values came from, none of which needs a restart.
func (c Config) Runs(o Config) bool {
	running := func(c Config) Config {
		c.Theme, c.Saved, c.Warnings, c.APIKeySource, c.BaseURLSource = "", Settings{}, nil, FromDefault, FromDefault
		c.HistoryURLGiven, c.HistoryURLSource = false, FromDefault
		return c
	}
	return reflect.DeepEqual(running(c), running(o))
}

// ParseCreditCap reads a credit cap: a whole number of credits, 0
// (or "off") for no cap.
func ParseCreditCap(v string) (int64, error) {
	if v == "off" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("give a whole number of credits, 0 or off for no cap")
	}
	return n, nil
}

// Live reports whether the configuration talks to a real service.
func (c Config) Live() bool { return c.APIKey != "" }

// Backend names the backend for the header: "sandbox" or the service's host.
func (c Config) Backend() string {
	if !c.Live() {
		return "sandbox"
	}
	if u, err := url.Parse(c.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return c.BaseURL
}

// Account names the account tasks are sent on, as history records it:
// "sandbox" (in a team's history, "sandbox:" and the machine), or "key:"
// and the first twelve hex digits of the key's
// SHA-256 (never the key: colleagues with the same key share an account).
func (c Config) Account() string {
	if !c.Live() {
		if c.Team() {
			// Each copy's embedded sandbox is a service of its own: its
			// tasks are read, and its credits capped, by that copy alone.
			return "sandbox:" + c.Machine()
		}
		return "sandbox"
	}
	sum := sha256.Sum256([]byte(c.APIKey))
	return "key:" + hex.EncodeToString(sum[:6])
}

// Machine names this copy of clapper: who sends from it and, in a team's
// database, whose files it saved, whose download leases and upload cache
// are its own. It is user@host, and the data folder too when it is not the
// user's default one, so two copies on one host, whether of two users or
// of one user's two data folders, never take each other's files for
// theirs (a result one saved reads "saved on" the other) and by:NAME tells
// them apart. The user is $USER when set (containers where everyone is
// root name people by it), else the account's login name.
func (c Config) Machine() string {
	name := os.Getenv("USER")
	if name == "" {
		name = "someone"
		if u, err := user.Current(); err == nil && u.Username != "" {
			name = u.Username
		}
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "?"
	}
	me := fileSafe(name) + "@" + fileSafe(host)
	if def, err := DefaultDataDir(); err == nil && filepath.Clean(def) == filepath.Clean(c.DataDir) {
		return me
	}
	dir, err := filepath.Abs(c.DataDir)
	if err != nil {
		dir = c.DataDir
	}
	return me + ":" + dir
}

// Team reports whether the history is a team's shared database.
func (c Config) Team() bool { return c.HistoryURL != "" }

// HistoryName names the history for the header and messages: "TEAM
// host/database" for a team's database (no user, no password), else the
// history file's path.
func (c Config) HistoryName() string {
	if !c.Team() {
		return c.HistoryPath()
	}
	u, err := url.Parse(c.HistoryURL)
	if err != nil {
		return "TEAM"
	}
	return "TEAM " + u.Hostname() + u.Path
}

// TeamMachinePath is where this machine keeps its own part of a team's
// history (the files it saved and their leases, its upload cache): a file
// of its own per team database, in the data folder, since ids and paths of
// one database mean nothing in another. The database is named as the
// connection resolves it (the port and the database a URL leaves out), so
// that every spelling of one database is one file: two processes of this
// machine hold one lease on a file, not one each.
func (c Config) TeamMachinePath() string {
	var name string
	if pc, err := pgconn.ParseConfig(c.HistoryURL); err == nil {
		db := pc.Database
		if db == "" {
			db = pc.User // the server's default database
		}
		name = fmt.Sprintf("%s:%d/%s", pc.Host, pc.Port, db)
	}
	return filepath.Join(c.DataDir, "team-"+fileSafe(name)+".db")
}

// RedactURL is a history URL as it may be shown: without its password.
func RedactURL(u string) string { return history.Redact(u) }

// KeptPassword stands for a history URL's password while the URL is edited
// (EditableURL), so that the password is never on the screen.
const KeptPassword = "(kept)"

// EditableURL is a history URL as it is given to edit: its password, if
// any, replaced by KeptPassword.
func EditableURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.User == nil {
		return u
	}
	if _, has := parsed.User.Password(); !has {
		return u
	}
	parsed.User = url.UserPassword(parsed.User.Username(), KeptPassword)
	// Written as typed, not escaped (%28kept%29): EditedURL reads it back
	// either way.
	return strings.Replace(parsed.String(), ":"+url.PathEscape(KeptPassword)+"@", ":"+KeptPassword+"@", 1)
}

// EditedURL is the URL typed over EditableURL(was): KeptPassword there is
// was's password again; any other is what was typed.
func EditedURL(typed, was string) string {
	t, err := url.Parse(typed)
	if err != nil || t.User == nil {
		return typed
	}
	if pw, _ := t.User.Password(); pw != KeptPassword {
		return typed
	}
	old, err := url.Parse(was)
	if err != nil || old.User == nil {
		return typed
	}
	pw, _ := old.User.Password()
	t.User = url.UserPassword(t.User.Username(), pw)
	return t.String()
}

// CheckHistory opens the history a configuration names and closes it again:
// a team's database is reached, logged into and migrated, or the reason it
// cannot be is the error (naming the URL without its password).
func CheckHistory(ctx context.Context, cfg Config) error {
	s, err := openHistory(ctx, cfg)
	if err != nil {
		return err
	}
	return s.Close()
}

// HistoryPath is the history database of this configuration's backend.
func (c Config) HistoryPath() string {
	if !c.Live() {
		return filepath.Join(c.DataDir, "history.db")
	}
	return filepath.Join(c.DataDir, "live-"+fileSafe(c.Backend())+".db")
}

// CallbackLogPath is where the callback receiver logs its own errors.
func (c Config) CallbackLogPath() string { return filepath.Join(c.DataDir, "callbacks.log") }

// SandboxStatePath keeps the embedded sandbox's tasks between runs, so a
// task created by one command is still there, still progressing, in the
// next.
func (c Config) SandboxStatePath() string { return filepath.Join(c.DataDir, "sandbox-state.json") }

var unsafeFileRunes = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileSafe(s string) string {
	s = unsafeFileRunes.ReplaceAllString(s, "_")
	if s == "" || s == "." || s == ".." {
		return "service"
	}
	return s
}

// DefaultDataDir is $XDG_DATA_HOME/clapper or ~/.local/share/clapper.
func DefaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "clapper"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", &UsageError{fmt.Sprintf("no home directory to keep data in: give --data-dir or %s", EnvDataDir)}
	}
	return filepath.Join(home, ".local", "share", "clapper"), nil
}

// DefaultDataDirHint is how help text names the default data directory.
const DefaultDataDirHint = "$XDG_DATA_HOME/clapper or ~/.local/share/clapper"

// errNoConfigDir is returned when neither CLAPPER_CONFIG_DIR nor the
// user's config directory can be found.
var errNoConfigDir = errors.New("no config directory: set " + EnvConfigDir + " or XDG_CONFIG_HOME")
