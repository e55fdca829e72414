package cli

import (
	"path/filepath"

	"clapper/history"
)

// historyFile is the history database inside the data directory.
const historyFile = "history.db"

func (app *App) openStore() (*history.Store, error) {
	return history.Open(filepath.Join(app.Config.DataDir, historyFile))
}
