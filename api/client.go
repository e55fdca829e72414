package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client speaks the service's wire format. It is safe for concurrent use.
type Client struct {
	baseURL string
	apiKey  string
	http    *http.Client
	timeout time.Duration
	maxBody int64 // the largest answer read; larger ones are an error
	retry   RetryPolicy
	sleep   func(context.Context, time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the transport (tests, proxies).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithTimeout bounds each attempt of each request; zero means no bound.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetry replaces the retry policy of reads.
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithSleep replaces how the client waits between attempts, so tests drive
// time instead of sleeping.
func WithSleep(f func(context.Context, time.Duration) error) Option {
	return func(c *Client) { c.sleep = f }
}

// NewClient returns a client for the service at baseURL (scheme and host,
// without /ent/v2) that authenticates with apiKey.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http(s)://host[:port]", baseURL)
	}
	if u.User != nil {
		return nil, errors.New("base URL must not carry credentials; give the API key separately")
	}
	c := &Client{
		baseURL: u.String(),
		apiKey:  apiKey,
		// A transport of its own: a pool shared with an earlier client
		// of a server since closed on the same address (a sandbox that
		// keeps its port across backends) hands a POST a dead connection,
		// which fails with EOF and is never retried.
		http:    &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		timeout: 60 * time.Second,
		maxBody: MaxAnswer,
		retry:   DefaultRetry,
		sleep:   SleepContext,
	}
	for _, o := range opts {
		o(c)
	}
	c.http = guardRedirects(c.http)
	return c, nil
}

// With returns a copy of the client with options applied (a watcher's own
// retry policy, say), sharing its transport.
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	if cp.http != c.http {
		cp.http = guardRedirects(cp.http)
	}
	return &cp
}

// CloseIdleConnections closes the kept-alive connections of the client's
// transport, once its backend is closed.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// BaseURL is the service address the client talks to.
func (c *Client) BaseURL() string { return c.baseURL }

// APIKey is the token requests are signed with; callback receivers verify
// signatures with it.
func (c *Client) APIKey() string { return c.apiKey }

// Create submits a creation request. body is a typed request or a JSON
// object (map); it is sent as given. The POST is never retried once it may
// have reached the server: a lost answer must not create a second task.
func (c *Client) Create(ctx context.Context, op Operation, body any) (*Task, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", op, err)
	}
	var t Task
	resp, err := c.do(ctx, http.MethodPost, op.Path(), raw, false)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(resp, &t); err != nil {
		return nil, fmt.Errorf("%s: decode creation answer: %w", op, err)
	}
	if t.Identifier() == "" {
		return nil, fmt.Errorf("%s: the service answered without a task id: %s", op, CleanText(string(truncate(resp, 200))))
	}
	if err := CheckID(t.Identifier()); err != nil {
		return nil, fmt.Errorf("%s: the service answered an id clapper cannot use: %w", op, err)
	}
	t.Raw = resp
	return &t, nil
}

// Get reads a task's result.
func (c *Client) Get(ctx context.Context, id string) (*TaskResult, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, http.MethodGet, "/ent/v2/tasks/"+url.PathEscape(id)+"/creations", nil, true)
	if err != nil {
		return nil, err
	}
	var r TaskResult
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", id, err)
	}
	if r.ID == "" {
		r.ID = id
	}
	if err := CheckID(r.ID); err != nil {
		return nil, fmt.Errorf("task %s: the service answered an id clapper cannot use: %w", id, err)
	}
	r.Raw = resp
	return &r, nil
}

// Cancel asks the service to cancel a task (off-peak tasks); the task then
// reads failed with err_code UserCancelled.
func (c *Client) Cancel(ctx context.Context, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	body, _ := json.Marshal(map[string]string{"id": id})
	_, err := c.do(ctx, http.MethodPost, "/ent/v2/tasks/"+url.PathEscape(id)+"/cancel", body, false)
	return err
}

// GetOneClick reads a multi-scene job record.
func (c *Client) GetOneClick(ctx context.Context, id string) (*OneClickJob, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, http.MethodGet, OpGeneralOneClick.Path()+"/"+url.PathEscape(id), nil, true)
	if err != nil {
		return nil, err
	}
	var j OneClickJob
	if err := json.Unmarshal(resp, &j); err != nil {
		return nil, fmt.Errorf("decode job %s: %w", id, err)
	}
	if err := j.checkIDs(); err != nil {
		return nil, fmt.Errorf("job %s: the service answered an id clapper cannot use: %w", id, err)
	}
	j.Raw = resp
	return &j, nil
}

// EditScene regenerates one scene of a multi-scene job; it answers the id of
// the new scene job.
func (c *Client) EditScene(ctx context.Context, jobID string, req EditSceneRequest) (string, error) {
	return c.postID(ctx, jobID, OpGeneralOneClick.Path()+"/"+url.PathEscape(jobID)+"/edit", req)
}

// Compose recomposes a multi-scene job from chosen scene jobs; it answers the
// id of the new compose job.
func (c *Client) Compose(ctx context.Context, jobID string, req ComposeRequest) (string, error) {
	return c.postID(ctx, jobID, OpGeneralOneClick.Path()+"/"+url.PathEscape(jobID)+"/compose", req)
}

func (c *Client) postID(ctx context.Context, jobID, path string, body any) (string, error) {
	if err := CheckID(jobID); err != nil {
		return "", err
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	resp, err := c.do(ctx, http.MethodPost, path, raw, false)
	if err != nil {
		return "", err
	}
	var r IDResponse
	if err := json.Unmarshal(resp, &r); err != nil || r.ID == "" {
		return "", fmt.Errorf("%s: the service answered without an id: %s", path, CleanText(string(truncate(resp, 200))))
	}
	if err := CheckID(r.ID); err != nil {
		return "", fmt.Errorf("%s: the service answered an id clapper cannot use: %w", path, err)
	}
	return r.ID, nil
}

// do sends one request, retrying per the policy when idempotent is true, and
// a non-idempotent one only when it provably never left this machine.
func (c *Client) do(ctx context.Context, method, path string, body []byte, idempotent bool) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		resp, retryAfter, err := c.once(ctx, method, path, body)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, c.redact(err)
		}
		retryable := (idempotent && isRetryable(err)) || (!idempotent && NeverSent(err))
		if !retryable || attempt >= c.retry.Attempts {
			return nil, c.redact(err)
		}
		wait := c.retry.Backoff(attempt, retryAfter)
		if wait < 0 {
			return nil, c.redact(err) // the server asks for a longer pause than we wait in-line
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, c.redact(err)
		}
	}
}

func (c *Client) once(ctx context.Context, method, path string, body []byte) ([]byte, time.Duration, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Token "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, 0, &NetworkError{Method: method, Path: path, Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, c.maxBody+1))
	if err != nil {
		return nil, 0, &NetworkError{Method: method, Path: path, Err: err, Sent: true}
	}
	tooLarge := int64(len(data)) > c.maxBody
	if tooLarge {
		data = data[:c.maxBody]
	}
	data = c.scrub(data)
	if res.StatusCode/100 != 2 {
		// A rejection is told by its status; its start is enough to explain it.
		e := decodeError(res.StatusCode, res.Header, data)
		return nil, ParseRetryAfter(e.RetryAfter, time.Now()), e
	}
	if tooLarge {
		return nil, 0, &AnswerTooLargeError{Method: method, Path: path, Limit: c.maxBody}
	}
	return data, 0, nil
}

// MaxAnswer bounds what clapper reads of one answer: the largest real one (a
// multi-scene job record) is a few hundred kilobytes.
const MaxAnswer = 64 << 20

// AnswerTooLargeError is an answer cut at the read cap. Reading it again
// would not help, so it is not retried; a creation it answered may exist.
type AnswerTooLargeError struct {
	Method, Path string
	Limit        int64
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("%s %s: the service's answer exceeded %s; clapper reads at most that much", e.Method, e.Path, ByteSize(e.Limit))
}

// NetworkError is a request that got no HTTP answer.
type NetworkError struct {
	Method, Path string
	Err          error
	// Sent is true when the request surely reached the server.
	Sent bool
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }

func isRetryable(err error) bool {
	var ne *NetworkError
	if errors.As(err, &ne) {
		return true
	}
	if e, ok := AsError(err); ok {
		return e.Temporary()
	}
	return false
}

// NeverSent reports a failure to connect at all, after which even a
// creation may be sent again safely.
func NeverSent(err error) bool {
	var ne *NetworkError
	if !errors.As(err, &ne) || ne.Sent {
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// UnreachedHost is the host a request never reached (NeverSent): the
// address dialled, or the service when the error does not name it.
func UnreachedHost(err error) (string, bool) {
	if !NeverSent(err) {
		return "", false
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u.Host, true
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String(), true
	}
	return "the service", true
}

// redact keeps the API key out of every error string, whatever a transport
// may have echoed (a key too short to be secret is left, as Scrub does).
func (c *Client) redact(err error) error {
	if len(c.apiKey) < MinSecret || !strings.Contains(err.Error(), c.apiKey) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), c.apiKey, "[redacted]"), err: err}
}

// scrub removes the API key from every answer as it is read, before any of
// it is decoded, stored in history or shown: a server may echo the header
// it rejected, escaped in any JSON spelling.
func (c *Client) scrub(b []byte) []byte { return Scrub(b, c.apiKey) }

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// SleepContext waits d or until ctx ends, whichever comes first.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
