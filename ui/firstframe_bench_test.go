package ui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/studio"
)

// The first-frame benchmark times whole processes, as a person starting
// clapper in a terminal would: from exec to the first frame that shows the
// Tasks page's rows, against a one-line Bubble Tea program's first frame.
// Both are this test binary, started in a child mode (TestMain), so both
// pay the same start-up of the same packages; what differs is the work of
// clapper's own start: the studio (history, embedded sandbox, Start with
// tasks in flight), the first reads and frames.
const firstFrameChild = "CLAPPER_FIRST_FRAME_CHILD"

// firstFrameMarker is what a child writes to stderr as it draws the frame,
// followed by the CPU time it has used by then, in microseconds: on a
// machine other programs keep busy, the wall time mostly measures them.
const firstFrameMarker = "first frame"

// processCPU is the CPU time this process has used, user and system; zero
// where it is not known (set on unix).
var processCPU = func() time.Duration { return 0 }

// framed wraps a root model and reports, once, the first frame that
// ready says is the one awaited.
type framed struct {
	tea.Model
	ready func(tea.Model) bool
	done  bool
}

func (f *framed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := f.Model.Update(msg)
	f.Model = m
	return f, cmd
}

func (f *framed) View() tea.View {
	v := f.Model.(interface{ View() tea.View }).View()
	if !f.done && f.ready(f.Model) {
		f.done = true
		fmt.Fprintln(os.Stderr, firstFrameMarker, processCPU().Microseconds())
	}
	return v
}

// oneLine is the baseline: a program that draws one line.
type oneLine struct{}

func (oneLine) Init() tea.Cmd                       { return nil }
func (oneLine) Update(tea.Msg) (tea.Model, tea.Cmd) { return oneLine{}, nil }
func (oneLine) View() tea.View                      { return tea.NewView("hello") }

// firstFrameChildMain runs the child: "oneline", or "clapper:DIR" (the TUI
// on the data dir DIR). It draws until killed.
func firstFrameChildMain(mode string) int {
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(140, 40)}
	if mode == "oneline" {
		m := &framed{Model: oneLine{}, ready: func(tea.Model) bool { return true }}
		if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	dir, _ := strings.CutPrefix(mode, "clapper:")
	os.Setenv(studio.EnvConfigDir, dir)
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	wrap := func(m tea.Model) tea.Model {
		return &framed{Model: m, ready: func(m tea.Model) bool {
			return len(m.(*Model).pages[pageTasks].(*tasksPage).win.rows) > 0
		}}
	}
	if err := runWith(context.Background(), cfg, wrap, opts...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// timeFirstFrame starts a child and returns how long it took to draw its
// first awaited frame, and the CPU time it used to.
func timeFirstFrame(b *testing.B, mode string) (wall, cpu time.Duration) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), firstFrameChild+"="+mode)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if us, ok := strings.CutPrefix(lines.Text(), firstFrameMarker+" "); ok {
			wall = time.Since(start)
			n, err := strconv.ParseInt(us, 10, 64)
			if err != nil {
				b.Fatalf("%s: %q", mode, lines.Text())
			}
			return wall, time.Duration(n) * time.Microsecond
		}
		b.Log(lines.Text())
	}
	b.Fatalf("%s: no first frame", mode)
	return 0, 0
}

// From exec to the first frame with rows: clapper on a 100,000-task
// history with 5 tasks in flight, against a one-line Bubble Tea program
// (target: within 1.3x). Each op starts both, one after the other.
func BenchmarkFirstFrameProcess(b *testing.B) {
	dir := benchDataDirInFlight(b, 100_000, 5)
	timeFirstFrame(b, "clapper:"+dir) // the first start migrates the fixture
	var baseline, clapper, baselineCPU, clapperCPU time.Duration
	for b.Loop() {
		wall, cpu := timeFirstFrame(b, "oneline")
		baseline, baselineCPU = baseline+wall, baselineCPU+cpu
		wall, cpu = timeFirstFrame(b, "clapper:"+dir)
		clapper, clapperCPU = clapper+wall, clapperCPU+cpu
	}
	n := float64(b.N)
	b.ReportMetric(baseline.Seconds()*1000/n, "oneline-ms")
	b.ReportMetric(clapper.Seconds()*1000/n, "clapper-ms")
	b.ReportMetric(clapper.Seconds()/baseline.Seconds(), "ratio")
	if baselineCPU > 0 {
		b.ReportMetric(baselineCPU.Seconds()*1000/n, "oneline-cpu-ms")
		b.ReportMetric(clapperCPU.Seconds()*1000/n, "clapper-cpu-ms")
	}
}
