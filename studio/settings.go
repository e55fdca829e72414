package studio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"clapper/api"
	"clapper/internal/fsutil"
)

// Settings are what the Settings page saves. Unset fields take the
// defaults; the API key is kept only here (mode 0600) or in the
// environment, never in history or logs.
type Settings struct {
	APIKey        string  `json:"api_key,omitempty"`
	BaseURL       string  `json:"base_url,omitempty"`
	DownloadDir   string  `json:"download_dir,omitempty"`
	AutoDownload  *bool   `json:"auto_download,omitempty"`
	RequestBudget float64 `json:"request_budget,omitempty"`
	Theme         string  `json:"theme,omitempty"`
	SandboxSpeed  float64 `json:"sandbox_speed,omitempty"`
	// AgentCreditCap: credits AI agents may spend per day; 0 is no cap.
	AgentCreditCap int64 `json:"agent_credit_cap,omitempty"`
	// DailyCreditCap and MonthlyCreditCap: credits every front end together
	// may spend per day and per month; 0 is no cap.
	DailyCreditCap   int64 `json:"daily_credit_cap,omitempty"`
	MonthlyCreditCap int64 `json:"monthly_credit_cap,omitempty"`
	// Uploads is when local images are uploaded rather than inlined:
	// auto (default), always or never.
	Uploads string `json:"uploads,omitempty"`
	// AgentMediaRoots are folders whose files AI agents may send, beside
	// the download folders.
	AgentMediaRoots []string `json:"agent_media_roots,omitempty"`
	// AgentConfirmAbove is the price in credits past which an agent's
	// send asks the person first; unset is the default, 0 asks only near
	// a cap.
	AgentConfirmAbove *int64 `json:"agent_confirm_above,omitempty"`
	// AgentUnconfirmed lets an agent's send that should ask go on when its
	// client cannot ask.
	AgentUnconfirmed bool `json:"agent_unconfirmed,omitempty"`
	// HistoryURL is a team's shared history (postgres://...); empty is
	// the history file in the data directory.
	HistoryURL string `json:"history_url,omitempty"`
}

// SettingsPath is settings.json in $CLAPPER_CONFIG_DIR, else in the user's
// config directory under clapper/.
func SettingsPath() (string, error) {
	if d := os.Getenv(EnvConfigDir); d != "" {
		return filepath.Join(d, "settings.json"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", errNoConfigDir
	}
	return filepath.Join(d, "clapper", "settings.json"), nil
}

// maxSettingsFile bounds what is read of the settings file: a real one is
// a few hundred bytes.
const maxSettingsFile = 1 << 20

// LoadSettings reads the settings file; a missing file is empty settings.
// A file holding the key that others may read is made private (0600) at
// once, and warnings say so. A file that is not a regular file (a FIFO, a
// device) is refused without being opened, so nothing waits on it.
func LoadSettings() (s Settings, warnings []string, err error) {
	p, err := SettingsPath()
	if err != nil {
		// Without a config directory nothing was ever saved.
		return s, nil, nil
	}
	b, err := api.ReadRegularFile(p, maxSettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, nil
	}
	if err != nil {
		return s, nil, &UsageError{fmt.Sprintf("settings file: %v: fix or delete it", err)}
	}
	// The same byte-order mark a request file may carry.
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if err := json.Unmarshal(b, &s); err != nil {
		return s, nil, &UsageError{fmt.Sprintf("settings file %s is not valid JSON (%v): fix or delete it", p, err)}
	}
	if s.APIKey != "" {
		if w := makePrivate(p); w != "" {
			warnings = append(warnings, w)
		}
	}
	return s, warnings, nil
}

// makePrivate sets a key-holding file to 0600 when group or others may
// read it, and says what it did (or could not do). A settings file that is
// a link is not followed for that: the file it points to may be anyone's
// (a dotfiles repository, a shared config), so the warning names it and
// leaves it as it is.
func makePrivate(p string) string {
	if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		target, _ := filepath.EvalSymlinks(p)
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			return fmt.Sprintf("settings file %s is a link to %s, which holds the API key and others may read (mode %04o); it is not changed through the link: make it 0600 yourself, or replace the link by a file",
				p, target, st.Mode().Perm())
		}
		return ""
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	if err := os.Chmod(p, 0o600); err != nil {
		return fmt.Sprintf("settings file %s holds the API key and others may read it (mode %04o); making it 0600 failed: %v", p, st.Mode().Perm(), err)
	}
	return fmt.Sprintf("settings file %s holds the API key and others could read it (mode %04o); it is now 0600", p, st.Mode().Perm())
}

// SaveSettings writes the settings file with mode 0600 (it may hold the API
// key), replacing it whole so a crash never leaves half a file.
func SaveSettings(s Settings) (string, error) {
	p, err := SettingsPath()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("settings file %s: %w", p, err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	if err := fsutil.WriteFile(p, append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("settings file %s: %w", p, err)
	}
	return p, nil
}

// MaskKey shows enough of a key to recognise it, never enough to use it.
func MaskKey(k string) string {
	r := []rune(k)
	switch {
	case len(r) == 0:
		return ""
	case len(r) <= 8:
		return "••••••••"
	}
	return "••••••••" + string(r[len(r)-4:])
}
