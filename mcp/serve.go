package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/internal/httpserve"
	"clapper/record"
	"clapper/studio"
)

// maxMessageBytes bounds one message: a request may carry 20 MB of media
// as data URIs, which JSON escaping can grow.
const maxMessageBytes = 32 << 20

// ServeOptions say how `clapper mcp` serves.
type ServeOptions struct {
	// HTTP, when set, is a loopback address (127.0.0.1:PORT) where
	// streamable HTTP is served instead of stdio.
	HTTP string
	// Stdin and Stdout carry the protocol in stdio mode; Stderr gets the
	// notices (the sandbox, the HTTP address and its token).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Version is the clapper version reported to clients.
	Version string
	// Toolsets, Tools, ReadOnly and Compact narrow the tool list, as
	// Options says.
	Toolsets, Tools []string
	ReadOnly        bool
	Compact         bool
}

// Serve opens the studio for cfg (origin mcp), starts its background work
// and serves MCP until ctx ends or the stdio client leaves.
func Serve(ctx context.Context, cfg studio.Config, o ServeOptions) error {
	var ln net.Listener
	if o.HTTP != "" {
		var err error
		if ln, err = listenLoopback(o.HTTP); err != nil {
			return err
		}
		defer ln.Close()
	}
	st, err := studio.Open(ctx, cfg, studio.Options{Origin: record.OriginMCP, NoEvents: true})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Start(ctx); err != nil {
		return err
	}
	if st.Sandbox() {
		fmt.Fprintln(o.Stderr, "clapper mcp: "+studio.SandboxNotice)
	}
	if cfg.AgentCreditCap > 0 {
		fmt.Fprintf(o.Stderr, "clapper mcp: agent tasks may cost at most %d credits a day\n", cfg.AgentCreditCap)
	}
	s, err := New(st, Options{Version: o.Version, MediaRoots: cfg.MediaRoots, Toolsets: o.Toolsets, Tools: o.Tools,
		ReadOnly: o.ReadOnly, Compact: o.Compact, Consent: Consent{Above: cfg.AgentConfirmAbove, Unasked: cfg.AgentUnconfirmed}})
	if err != nil {
		return err
	}
	if ln == nil {
		out := &lockedWriter{w: o.Stdout}
		return s.Run(ctx, &sdk.IOTransport{Reader: guardStdio(o.Stdin, out, maxMessageBytes), Writer: out, MaxLineLength: maxMessageBytes + 1})
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "clapper mcp: streamable HTTP at http://%s/mcp\nclapper mcp: every request needs the header  Authorization: Bearer %s\n", ln.Addr(), token)
	// The server's own errors go to a file: stderr is the person's, and a
	// flood of bad handshakes must not fill it.
	logFile, err := os.OpenFile(filepath.Join(cfg.DataDir, "mcp-http.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	defer logFile.Close()
	return s.serveHTTP(ctx, ln, token, logFile)
}

// serveHTTP serves streamable HTTP on ln to requests with the token until
// ctx ends. Anyone on this machine can connect before the token is
// checked: connections, idle time and header reads are bounded as the
// callback receiver's are (past 64 connections, the longest idle one
// makes room); answers are not (an event stream lasts as long as its agent
// listens). The server's own errors go to errorLog.
func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, token string, errorLog io.Writer) error {
	srv := httpserve.Serve(ln, s.HTTPHandler(token), httpserve.Limits{MaxConns: 64, ErrorLog: errorLog, Prefix: "mcp: "})
	<-ctx.Done()
	// Agents keep event streams open: a second for calls under way to
	// answer, then the rest are closed (a stop must not wait on a client
	// that never hangs up).
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	return ctx.Err()
}

// listenLoopback listens on addr only if it is a loopback address: the
// server spends the user's credits, so it is never offered to a network.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &studio.UsageError{Msg: fmt.Sprintf("--http %q: give a loopback address such as 127.0.0.1:8765", addr)}
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, &studio.UsageError{Msg: fmt.Sprintf("--http %q: only a loopback address (127.0.0.1, ::1, localhost) is served; the server spends your credits", addr)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	return ln, nil
}

// HTTPHandler serves streamable HTTP at /mcp to requests that carry the
// bearer token.
func (s *Server) HTTPHandler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: maxMessageBytes})
	want := []byte("Bearer " + token)
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := foreign(r); why != "" {
			http.Error(w, "clapper mcp: "+why, http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="clapper"`)
			http.Error(w, "clapper mcp: missing or wrong bearer token (printed when clapper mcp --http started)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

// foreign says why a request does not come from this machine, "" when it
// does. The server listens on loopback only, but a web page elsewhere can
// still make a browser here call it: by a name of its own that resolves to
// 127.0.0.1 (DNS rebinding: the Host header gives it away), or with its
// own Origin. The MCP specification asks servers to validate Origin.
func foreign(r *http.Request) string {
	if !loopbackHost(r.Host) {
		return fmt.Sprintf("Host %q is refused: this server answers only to localhost and loopback addresses", api.CleanLine(r.Host))
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "" // not a browser's cross-origin call: an agent's own client
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !loopbackHost(u.Host) {
		return fmt.Sprintf("Origin %q is refused: only a page served from this machine (localhost) may call this server", api.CleanLine(origin))
	}
	return ""
}

// loopbackHost reports whether host[:port] names this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
