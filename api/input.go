package api

import (
	"context"
	"fmt"
	"io"
	"os"
)

// ReadRegularFile reads a file the user named as input (a request, a
// settings file, a medium to send). It must be a regular file: a device
// reports size 0 and never ends (/dev/zero), a FIFO blocks until someone
// writes, and neither is what anyone means by a file to send. More than
// limit bytes is refused without reading past the limit.
func ReadRegularFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		what := "not a regular file"
		if st.IsDir() {
			what = "a directory, not a file"
		}
		return nil, fmt.Errorf("%s is %s", path, what)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %s; at most %s is read", path, ByteSize(st.Size()), ByteSize(limit))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Stat again on the open file: the name may have been swapped since.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past %s while being read", path, ByteSize(limit))
	}
	return data, nil
}

// ReadStream reads r (standard input) to its end, at most limit bytes,
// and gives up when ctx ends (Ctrl-C), even while nothing is written: the
// read goes on in the background and its result is dropped.
func ReadStream(ctx context.Context, r io.Reader, limit int64, name string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		done <- result{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("reading %s: %w", name, ctx.Err())
	case res := <-done:
		if res.err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, res.err)
		}
		if int64(len(res.data)) > limit {
			return nil, fmt.Errorf("%s holds more than %s; at most that much is read", name, ByteSize(limit))
		}
		return res.data, nil
	}
}
