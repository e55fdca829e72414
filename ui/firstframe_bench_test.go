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
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/studio"
)

// The first-frame benchmark times whole processes, as a person starting
// clapper in a terminal would: from exec to the first frame written, and to
// the first frame with the Tasks page's rows, against a one-line Bubble Tea
// program's first frame. Both are this test binary, started in a child mode
// (TestMain), so both pay the same start-up of the same packages; what
// differs is the work of clapper's own start: the studio (history, embedded
// sandbox, Start with tasks in flight), the first reads and frames.
const firstFrameChild = "CLAPPER_FIRST_FRAME_CHILD"

// frameMarker is what a child writes to stderr as an awaited frame is
// written, followed by the frame's name and the CPU time the child has
// used by then, in microseconds: on a machine other programs keep busy,
// the wall time mostly measures them.
const frameMarker = "frame"

// processCPU is the CPU time this process has used, user and system; zero
// where it is not known (set on Linux).
var processCPU = func() time.Duration { return 0 }

// frameSpotter is a child's terminal: it reports the first write that
// holds each awaited frame's text (any of them). Bubble Tea writes each
// frame whole.
type frameSpotter struct {
	mu     sync.Mutex
	frames []awaited
}

type awaited struct {
	name  string
	texts []string
	seen  bool
}

func (w *frameSpotter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.frames {
		f := &w.frames[i]
		for _, t := range f.texts {
			if !f.seen && bytes.Contains(b, []byte(t)) {
				f.seen = true
				fmt.Fprintln(os.Stderr, frameMarker, f.name, processCPU().Microseconds())
			}
		}
	}
	return len(b), nil
}

// oneLine is the baseline: a program that draws one line.
type oneLine struct{}

func (oneLine) Init() tea.Cmd                       { return nil }
func (oneLine) Update(tea.Msg) (tea.Model, tea.Cmd) { return oneLine{}, nil }
func (oneLine) View() tea.View                      { return tea.NewView("hello") }

// firstFrameChildMain runs the child: "oneline", whose first frame is its
// line, or "clapper:DIR", the TUI on the data dir DIR, whose first frame
// is any and whose rows are those of tasks processing, or the page that
// says there are none. It draws until told to quit.
func firstFrameChildMain(mode string) int {
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithWindowSize(140, 40)}
	if mode == "oneline" {
		opts = append(opts, tea.WithOutput(&frameSpotter{frames: []awaited{{name: "first", texts: []string{"hello"}}}}))
		if _, err := tea.NewProgram(oneLine{}, opts...).Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	dir, _ := strings.CutPrefix(mode, "clapper:")
	os.Setenv(studio.EnvConfigDir, dir)
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	opts = append(opts, tea.WithOutput(&frameSpotter{frames: []awaited{
		{name: "first", texts: []string{"clapper"}},
		{name: "rows", texts: []string{api.StateProcessing, "No tasks yet"}},
	}}))
	if err := runWith(context.Background(), cfg, opts...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// frameTimes is when a child wrote an awaited frame: from exec, and the
// CPU time it had used.
type frameTimes struct{ wall, cpu time.Duration }

// timeFrames starts a child and returns when it wrote each of its awaited
// frames (want names them), then has it quit as a person would (SIGTERM),
// so that it closes its history: a killed one would leave the next start
// a log to recover.
func timeFrames(b *testing.B, mode string, want int) map[string]frameTimes {
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
		cmd.Process.Signal(syscall.SIGTERM)
		stop := time.AfterFunc(hangGuard, func() { cmd.Process.Kill() })
		cmd.Wait()
		stop.Stop()
	}()
	got := map[string]frameTimes{}
	lines := bufio.NewScanner(stderr)
	for len(got) < want && lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) != 3 || f[0] != frameMarker {
			b.Log(lines.Text())
			continue
		}
		us, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			b.Fatalf("%s: %q", mode, lines.Text())
		}
		got[f[1]] = frameTimes{wall: time.Since(start), cpu: time.Duration(us) * time.Microsecond}
	}
	if len(got) < want {
		b.Fatalf("%s: frames %v, want %d", mode, got, want)
	}
	return got
}

// From exec to the first frame, and to the first with rows: clapper on a
// new data dir (its history created at start) and on a 100,000-task
// history with 5 and with 20,000 tasks in flight, against a one-line
// Bubble Tea program (target: the first frame within 1.2x, in wall time
// and in CPU). Each op starts both, one after the other.
func BenchmarkFirstFrameProcess(b *testing.B) {
	for _, c := range []struct {
		name     string
		inFlight int // -1: a new data dir each start
	}{{"empty-history", -1}, {"5-in-flight", 5}, {"20000-in-flight", 20_000}} {
		b.Run(c.name, func(b *testing.B) {
			var dir func() string
			if c.inFlight < 0 {
				root := b.TempDir()
				dir = func() string {
					d, err := os.MkdirTemp(root, "start-")
					if err != nil {
						b.Fatal(err)
					}
					return d
				}
			} else {
				fixture := benchDataDirInFlight(b, 100_000, c.inFlight)
				dir = func() string { return fixture }
				timeFrames(b, "clapper:"+fixture, 2) // the first start migrates the fixture
			}
			var oneline, first, rows frameTimes
			add := func(sum *frameTimes, t frameTimes) { sum.wall, sum.cpu = sum.wall+t.wall, sum.cpu+t.cpu }
			for b.Loop() {
				add(&oneline, timeFrames(b, "oneline", 1)["first"])
				got := timeFrames(b, "clapper:"+dir(), 2)
				add(&first, got["first"])
				add(&rows, got["rows"])
			}
			ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
			b.ReportMetric(ms(oneline.wall), "oneline-ms")
			b.ReportMetric(ms(first.wall), "first-ms")
			b.ReportMetric(ms(rows.wall), "rows-ms")
			b.ReportMetric(first.wall.Seconds()/oneline.wall.Seconds(), "first-x")
			if oneline.cpu > 0 {
				b.ReportMetric(ms(oneline.cpu), "oneline-cpu-ms")
				b.ReportMetric(ms(first.cpu), "first-cpu-ms")
				b.ReportMetric(ms(rows.cpu), "rows-cpu-ms")
				b.ReportMetric(first.cpu.Seconds()/oneline.cpu.Seconds(), "first-cpu-x")
			}
		})
	}
}
