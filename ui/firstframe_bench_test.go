package ui

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/studio"
)

// The first-frame benchmark times whole processes, as a person starting
// clapper in a terminal would: from exec to the first frame written with
// the Tasks page's rows, against a one-line Bubble Tea program's first
// frame. Both are this test binary, started in a child mode (TestMain), so
// both pay the same start-up of the same packages; what differs is the
// work of clapper's own start: the studio (history, embedded sandbox, Start
// with tasks in flight), the first reads and frames.
const firstFrameChild = "CLAPPER_FIRST_FRAME_CHILD"

// firstFrameMarker is what a child writes to stderr as the awaited frame
// is written, followed by the CPU time it has used by then, in
// microseconds: on a machine other programs keep busy, the wall time
// mostly measures them.
const firstFrameMarker = "first frame"

// processCPU is the CPU time this process has used, user and system; zero
// where it is not known (set on Linux).
var processCPU = func() time.Duration { return 0 }

// frameSpotter is a child's terminal: it reports the first write that
// holds the awaited text. Bubble Tea writes each frame whole.
type frameSpotter struct {
	text []byte
	once sync.Once
}

func (w *frameSpotter) Write(b []byte) (int, error) {
	if bytes.Contains(b, w.text) {
		w.once.Do(func() { fmt.Fprintln(os.Stderr, firstFrameMarker, processCPU().Microseconds()) })
	}
	return len(b), nil
}

// oneLine is the baseline: a program that draws one line.
type oneLine struct{}

func (oneLine) Init() tea.Cmd                       { return nil }
func (oneLine) Update(tea.Msg) (tea.Model, tea.Cmd) { return oneLine{}, nil }
func (oneLine) View() tea.View                      { return tea.NewView("hello") }

// firstFrameChildMain runs the child: "oneline", or "clapper:DIR" (the TUI
// on the data dir DIR, whose newest tasks are processing). It draws until
// killed.
func firstFrameChildMain(mode string) int {
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithWindowSize(140, 40)}
	if mode == "oneline" {
		opts = append(opts, tea.WithOutput(&frameSpotter{text: []byte("hello")}))
		if _, err := tea.NewProgram(oneLine{}, opts...).Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	dir, _ := strings.CutPrefix(mode, "clapper:")
	os.Setenv(studio.EnvConfigDir, dir)
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	opts = append(opts, tea.WithOutput(&frameSpotter{text: []byte(api.StateProcessing)}))
	if err := runWith(context.Background(), cfg, opts...); err != nil {
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
// history with 5 and with 20,000 tasks in flight, against a one-line Bubble
// Tea program (target: within 1.3x). Each op starts both, one after the
// other.
func BenchmarkFirstFrameProcess(b *testing.B) {
	for _, inFlight := range []int{5, 20_000} {
		b.Run(fmt.Sprintf("%d-in-flight", inFlight), func(b *testing.B) {
			dir := benchDataDirInFlight(b, 100_000, inFlight)
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
		})
	}
}
