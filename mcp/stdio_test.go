package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every malformed line gets the JSON-RPC error the specification names,
// and the session goes on: the tools are listed after all of them, and an
// oversize line is refused without ending the process.
func TestStdioAnswersMalformedLinesAndGoesOn(t *testing.T) {
	r := newRig(t, rigOpts{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := &lockedWriter{w: outW}
	const max = 1 << 20
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- r.srv.Run(ctx, &sdk.IOTransport{Reader: guardStdio(inR, out, max), Writer: out, MaxLineLength: max + 1})
	}()
	defer func() { cancel(); inW.Close(); <-done }()
	replies := bufio.NewReader(outR)
	send := func(line string) {
		t.Helper()
		go inW.Write([]byte(line + "\n"))
	}
	reply := func() map[string]any {
		t.Helper()
		type result struct {
			m   map[string]any
			err error
		}
		got := make(chan result, 1)
		go func() {
			line, err := replies.ReadBytes('\n')
			var m map[string]any
			if err == nil {
				err = json.Unmarshal(line, &m)
			}
			got <- result{m, err}
		}()
		select {
		case res := <-got:
			if res.err != nil {
				t.Fatal(res.err)
			}
			return res.m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := reply(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct {
		line string
		code float64
		id   any
	}{
		{`{not json}`, rpcParseError, nil},
		{"\xff\xfe{}", rpcParseError, nil},
		{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, rpcInvalidRequest, nil},
		{`"just a string"`, rpcInvalidRequest, nil},
		{`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, rpcInvalidRequest, float64(7)},
		{`{"jsonrpc":"2.0","id":"x"}`, rpcInvalidRequest, "x"},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":` + strings.Repeat(" ", max) + `{}}`, rpcInvalidRequest, nil},
	} {
		send(c.line)
		m := reply()
		if code(m) != c.code || m["id"] != c.id {
			t.Errorf("%.40q: answered %v, want code %v id %v", c.line, m, c.code, c.id)
		}
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m := reply()
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) == 0 || m["id"] != float64(3) {
		t.Fatalf("after the malformed lines, tools/list answered %v", m)
	}
}
