package studio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"clapper/api/catalog"
)

// CatalogPath is the user's catalog file, catalog.json beside settings.json.
func CatalogPath() (string, error) {
	p, err := SettingsPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(p), catalog.UserFileName), nil
}

// LoadCatalog puts the user's catalog file in force: c.Catalog when given
// (it must exist), else catalog.json in the config directory when there is
// one. A file with a mistake is not used at all: a warning names the file,
// the entry and the mistake, and the built-in layers (the spec's tables and
// the service's additions) stay in force, so the program still starts.
func (c *Config) LoadCatalog() {
	path := c.Catalog
	if path == "" {
		p, err := CatalogPath()
		if err != nil {
			catalog.ResetUser()
			return
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			catalog.ResetUser()
			return
		}
		path = p
	}
	if err := catalog.LoadUserFile(path); err != nil {
		catalog.ResetUser()
		c.Warnings = append(c.Warnings, err.Error()+"; using the built-in catalog")
	}
}
