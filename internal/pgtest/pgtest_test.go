package pgtest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

func TestDatabase(t *testing.T) {
	s := Get(t)
	u := s.Database(t, "tmpl", nil)
	t.Log(u)
}
