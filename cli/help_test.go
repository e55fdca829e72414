package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// Issue 11 item 20: "Help text fits 80 columns (fang wraps it; examples
// too)". fang wraps only the long description: command and flag lines run
// past the edge and examples are cut with "…", so each must fit by itself.
func TestHelpFitsEightyColumns(t *testing.T) {
	t.Setenv("__FANG_TEST_WIDTH", "80") // fang reads the width once, from here or the terminal
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if !sub.Hidden {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(NewRoot(&App{}), nil)
	if len(paths) < 10 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, path := range paths {
		var out bytes.Buffer
		root := NewRoot(&App{Out: &out, Err: &out, In: strings.NewReader("")})
		root.SetArgs(append(path, "--help"))
		if err := fang.Execute(context.Background(), root); err != nil {
			t.Fatalf("%v --help: %v", path, err)
		}
		name := strings.Join(append([]string{"clapper"}, path...), " ")
		for _, line := range strings.Split(out.String(), "\n") {
			if w := ansi.StringWidth(line); w > 80 {
				t.Errorf("%s --help: a line of %d columns:\n%s", name, w, line)
			}
			if strings.Contains(line, "…") {
				t.Errorf("%s --help: an example cut short:\n%s", name, line)
			}
		}
	}
}
