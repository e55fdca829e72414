package studio

import (
	"clapper/internal/fsutil"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// LoadSettings reads the settings file; a missing file is empty settings.
func LoadSettings() (Settings, error) {
	var s Settings
	p, err := SettingsPath()
	if err != nil {
		// Without a config directory nothing was ever saved.
		return s, nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("settings: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, &UsageError{fmt.Sprintf("settings file %s is not valid JSON (%v): fix or delete it", p, err)}
	}
	return s, nil
}

// SaveSettings writes the settings file with mode 0600 (it may hold the API
// key), replacing it whole so a crash never leaves half a file.
func SaveSettings(s Settings) (string, error) {
	p, err := SettingsPath()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	if err := fsutil.WriteFile(p, append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("settings: %w", err)
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
