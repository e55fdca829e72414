//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: what is written to tty reads from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	var unlock int32
	var n uint32
	for _, c := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)}, {syscall.TIOCGPTN, unsafe.Pointer(&n)}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), c.req, uintptr(c.arg)); errno != 0 {
			t.Skipf("no pseudo-terminal here: %v", errno)
		}
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	return pty, tty
}

// On a terminal, create --dry-run shortens each data URI to its type and
// size, and says how to get it whole; redirected, it prints the request
// exactly as sent (issue 32: a screen of base64 hid the request).
func TestDryRunOnATerminalShortensDataURIs(t *testing.T) {
	dir := t.TempDir()
	img := writePNG(t, dir, "cat.png", 300, 300)
	args := []string{"create", "img2video", "--set", "model=svcq3-turbo", "--set", "prompt=a cat", "--set", "images=" + img, "--dry-run", "--data-dir", t.TempDir()}

	pty, tty := openPTY(t)
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(pty) // ends with EIO once the terminal side is closed
		read <- strings.ReplaceAll(string(b), "\r\n", "\n")
	}()
	var errb bytes.Buffer
	root := NewRoot(&App{Out: tty, Err: &errb, In: strings.NewReader(""), watcher: fastWatcher})
	root.SetArgs(args)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	tty.Close()
	got := <-read
	if strings.Contains(got, "iVBOR") || !strings.Contains(got, `"data:image/png;base64,…(`) ||
		!strings.Contains(got, "(data URIs shortened for the terminal; redirect the output to get them whole)") {
		t.Fatalf("on a terminal:\n%s", got)
	}

	r := execute("", args...)
	if r.code != 0 || !strings.Contains(r.out, `"data:image/png;base64,iVBOR`) || strings.Contains(r.out, "shortened") {
		t.Fatalf("redirected, the request is printed whole: %+v", r)
	}
}
