package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// An agent's client may send anything down stdio: a line that is not JSON,
// not UTF-8, a batch (the protocol has none since 2025-06-18), an object
// that is no JSON-RPC message, or a line past the size bound. The SDK's
// transport ends the session on the first of these, killing the calls in
// progress; guardStdio answers each with the JSON-RPC error the
// specification names and goes on. Only well-formed messages reach the SDK.

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// lockedWriter writes each message whole: the SDK and the guard both
// answer on stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil } // stdout is the process's

// guardStdio reads the agent's lines from in and hands the SDK, through
// the returned reader, only those that are one JSON-RPC message of at most
// max bytes; every other line is answered on out with an error.
func guardStdio(in io.Reader, out io.Writer, max int) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(r, max)
			switch {
			case tooLong:
				answer(out, nil, rpcInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d MB; this one was refused unread", max>>20))
			case len(bytes.TrimSpace(line)) > 0:
				if msg, ok := check(out, line); ok {
					if _, werr := pw.Write(msg); werr != nil {
						return // the session ended
					}
				}
			}
			if err != nil {
				pw.CloseWithError(err) // io.EOF: the agent left
				return
			}
		}
	}()
	return pr
}

// readLine reads one line (without its newline); past max bytes the rest
// of the line is read and dropped, and tooLong says so.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check answers a line that is no JSON-RPC message and reports false; a
// message is returned with its newline.
func check(out io.Writer, line []byte) ([]byte, bool) {
	line = bytes.TrimSpace(line)
	switch {
	case !utf8.Valid(line):
		answer(out, nil, rpcParseError, "Parse error: the message is not UTF-8")
		return nil, false
	case line[0] == '[':
		answer(out, nil, rpcInvalidRequest, "Invalid Request: batches are not part of the protocol (since 2025-06-18); send one message a line")
		return nil, false
	case !json.Valid(line):
		answer(out, nil, rpcParseError, "Parse error: the line is not JSON")
		return nil, false
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		answer(out, nil, rpcInvalidRequest, "Invalid Request: a message is a JSON object")
		return nil, false
	}
	id := m.ID
	if len(id) > 0 && id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		id = nil // an id is a string or a number; anything else is no id to answer to
	}
	switch {
	case m.JSONRPC != "2.0":
		answer(out, id, rpcInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
		return nil, false
	case m.Method == nil && (len(m.ID) == 0 || (m.Result == nil && m.Error == nil)):
		answer(out, id, rpcInvalidRequest, `Invalid Request: a message has a "method" (a request or notification) or an "id" with a "result" or "error" (a response)`)
		return nil, false
	case m.Method != nil && *m.Method == "":
		answer(out, id, rpcInvalidRequest, `Invalid Request: "method" is empty`)
		return nil, false
	}
	return append(line, '\n'), true
}

// answer writes a JSON-RPC error response (id null when there is none).
func answer(out io.Writer, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	out.Write(append(b, '\n'))
}
