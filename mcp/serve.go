package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	s := New(st, Options{Version: o.Version})
	if ln == nil {
		return s.Run(ctx, &sdk.IOTransport{Reader: nopCloser{o.Stdin}, Writer: nopWriteCloser{o.Stdout}, MaxLineLength: maxMessageBytes})
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "clapper mcp: streamable HTTP at http://%s/mcp\nclapper mcp: every request needs the header  Authorization: Bearer %s\n", ln.Addr(), token)
	srv := &http.Server{Handler: s.HTTPHandler(token), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
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
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="clapper"`)
			http.Error(w, "clapper mcp: missing or wrong bearer token (printed when clapper mcp --http started)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// The stdio streams belong to the process: the transport must not close them.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
