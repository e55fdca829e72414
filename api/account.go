package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Paths of the account, subject and upload calls (service notes, "Beyond
// the spec's tables").
const (
	PathCredits  = "/ent/v2/credits"
	PathSubjects = "/ent/v2/subjects"
	PathUploads  = "/tools/v2/files/uploads"
)

// Credits is the account's balance and concurrency. Live answers have been
// seen in two forms, the documented remaining_credits list and flat remains
// fields; both decode here.
type Credits struct {
	Remaining int `json:"-"`
	// HasConcurrency is set when the answer told running, queued and limit.
	HasConcurrency         bool `json:"-"`
	Running, Queued, Limit int  `json:"-"`

	RemainingCredits []CreditLine `json:"remaining_credits"`
	Remains          *flexInt     `json:"remains"`
	GeneralRemains   *flexInt     `json:"general_remains"`
	ExclusiveRemains *flexInt     `json:"exclusive_remains"`
}

// CreditLine is one credit type of the documented answer.
type CreditLine struct {
	Type               string   `json:"type"`
	CreditRemain       flexInt  `json:"credit_remain"`
	ConcurrencyLimit   *flexInt `json:"concurrency_limit"`
	CurrentConcurrency flexInt  `json:"current_concurrency"`
	QueueCount         flexInt  `json:"queue_count"`
}

// flexInt reads 12, 12.0 or "12".
type flexInt int

func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", s)
	}
	*n = flexInt(f)
	return nil
}

// Credits reads the account (GET /ent/v2/credits): the cheap way to check
// a key, since a bad one answers 401 or 403.
func (c *Client) Credits(ctx context.Context) (*Credits, error) {
	raw, err := c.do(ctx, http.MethodGet, PathCredits, nil, true)
	if err != nil {
		return nil, err
	}
	var cr Credits
	if err := json.Unmarshal(raw, &cr); err != nil {
		return nil, fmt.Errorf("credits: the service's answer is not the account: %v", err)
	}
	switch {
	case cr.RemainingCredits != nil:
		for _, l := range cr.RemainingCredits {
			cr.Remaining += int(l.CreditRemain)
			if l.ConcurrencyLimit != nil && !cr.HasConcurrency {
				cr.HasConcurrency = true
				cr.Limit, cr.Running, cr.Queued = int(*l.ConcurrencyLimit), int(l.CurrentConcurrency), int(l.QueueCount)
			}
		}
	case cr.Remains != nil:
		cr.Remaining = int(*cr.Remains)
	case cr.GeneralRemains != nil || cr.ExclusiveRemains != nil:
		for _, p := range []*flexInt{cr.GeneralRemains, cr.ExclusiveRemains} {
			if p != nil {
				cr.Remaining += int(*p)
			}
		}
	default:
		return nil, fmt.Errorf("credits: the service's answer names no remaining credits: %s", CleanText(string(truncate(raw, 200))))
	}
	return &cr, nil
}

// StoredSubject is a subject kept by the service; its ID is what
// reference2video calls server_id.
type StoredSubject struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Images      []string `json:"images"`
	Videos      []string `json:"videos"`
	VoiceID     string   `json:"voice_id"`
	Style       string   `json:"style"`
	Description string   `json:"description"`
	Credits     int      `json:"credits"`
}

// SubjectPage is one page of GET /ent/v2/subjects.
type SubjectPage struct {
	Subjects      []StoredSubject `json:"subjects"`
	NextPageToken string          `json:"next_page_token"`
	Count         int             `json:"count"`
}

// SubjectQuery selects subjects: the account's (Ownership "" or "private")
// or the service's ("system"), or the given IDs.
type SubjectQuery struct {
	Ownership string
	IDs       []string
	Count     int
	PageToken string
}

// CreateSubject stores a subject (POST /ent/v2/subjects). The body is the
// request's fields by name (name, images, videos, voice_id, style,
// description).
func (c *Client) CreateSubject(ctx context.Context, body map[string]any) (*StoredSubject, error) {
	return c.subjectCall(ctx, http.MethodPost, PathSubjects, body)
}

// UpdateSubject changes a stored subject (PUT /ent/v2/subjects/{id}): the
// fields given replace the old ones, images and videos whole.
func (c *Client) UpdateSubject(ctx context.Context, id string, body map[string]any) (*StoredSubject, error) {
	return c.subjectCall(ctx, http.MethodPut, PathSubjects+"/"+url.PathEscape(id), body)
}

func (c *Client) subjectCall(ctx context.Context, method, path string, body map[string]any) (*StoredSubject, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, method, path, raw, method == http.MethodPut)
	if err != nil {
		return nil, err
	}
	var sb StoredSubject
	if err := decodeClean(resp, &sb); err != nil || sb.ID == "" {
		return nil, fmt.Errorf("%s: the service answered without a subject id: %s", path, CleanText(string(truncate(resp, 200))))
	}
	return &sb, nil
}

// ListSubjects reads one page of stored subjects.
func (c *Client) ListSubjects(ctx context.Context, q SubjectQuery) (*SubjectPage, error) {
	v := url.Values{}
	if q.Ownership != "" {
		v.Set("ownership", q.Ownership)
	}
	if len(q.IDs) > 0 {
		v.Set("subject_ids", strings.Join(q.IDs, ","))
	}
	if q.Count > 0 {
		v.Set("count", strconv.Itoa(q.Count))
	}
	if q.PageToken != "" {
		v.Set("next_page_token", q.PageToken)
	}
	path := PathSubjects
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	resp, err := c.do(ctx, http.MethodGet, path, nil, true)
	if err != nil {
		return nil, err
	}
	var p SubjectPage
	if err := decodeClean(resp, &p); err != nil {
		return nil, fmt.Errorf("subjects: the service's answer is not a page of subjects: %v", err)
	}
	return &p, nil
}

// Upload sends a local image through the upload flow and answers its
// ssupload: URI: open an upload, PUT the bytes to its put_url (object
// storage: the API key is not sent there), finish with the etag.
func (c *Client) Upload(ctx context.Context, data []byte, contentType string) (string, error) {
	raw, err := c.do(ctx, http.MethodPost, PathUploads, []byte(`{"scene":"vidu"}`), false)
	if err != nil {
		return "", err
	}
	var opened struct {
		ID     string `json:"id"`
		PutURL string `json:"put_url"`
	}
	if err := decodeClean(raw, &opened); err != nil || opened.ID == "" || opened.PutURL == "" {
		return "", fmt.Errorf("upload: the service answered no upload id and put_url: %s", CleanText(string(truncate(raw, 200))))
	}
	if err := c.checkPutURL(opened.PutURL); err != nil {
		return "", err
	}
	etag, err := c.put(ctx, opened.PutURL, data, contentType)
	if err != nil {
		return "", err
	}
	body, _ := json.Marshal(map[string]string{"etag": etag})
	raw, err = c.do(ctx, http.MethodPut, PathUploads+"/"+url.PathEscape(opened.ID)+"/finish", body, true)
	if err != nil {
		return "", err
	}
	var done struct {
		URI string `json:"uri"`
	}
	if err := decodeClean(raw, &done); err != nil || done.URI == "" {
		return "", fmt.Errorf("upload: the service finished without a uri: %s", CleanText(string(truncate(raw, 200))))
	}
	if !uploadURI.MatchString(done.URI) {
		return "", fmt.Errorf("upload: the service finished with %s, not a uri of the form ssupload:?id=ID; it is not used (nor kept for reuse)", QuoteText(string(truncate([]byte(done.URI), 80))))
	}
	return done.URI, nil
}

// uploadURI is the form of a finished upload's uri (the service notes'
// ssupload:?id=...), an id as CheckID takes it.
var uploadURI = regexp.MustCompile(`^ssupload:\?id=[A-Za-z0-9._-]{1,128}$`)

// checkPutURL refuses a put_url the bytes must not go to: not http(s),
// carrying credentials, or plain http when the service itself is reached
// over https (the image would cross the network in the clear).
func (c *Client) checkPutURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return fmt.Errorf("upload: the put_url the service answered is not an http(s) URL")
	case u.User != nil:
		return fmt.Errorf("upload: the put_url the service answered carries credentials; nothing was sent to it")
	case u.Scheme == "http" && strings.HasPrefix(c.baseURL, "https://"):
		return fmt.Errorf("upload: the put_url the service answered is plain http (%s) while the service is https; nothing was sent to it", CleanText(u.Host))
	}
	return nil
}

// storage is the client for a presigned put_url: the service's own
// transport, but a redirect is refused as what it is (an upload goes only
// where the service said), not as a guard of the API key, which is never
// sent there.
func (c *Client) storage() *http.Client {
	cp := *c.http
	cp.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the storage redirected the upload to %s; an upload is sent only to the put_url the service gave", CleanText(req.URL.Host))
	}
	return &cp
}

// put stores the bytes at a presigned URL and answers the storage's etag.
func (c *Client) put(ctx context.Context, putURL string, data []byte, contentType string) (string, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, putURL, bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", contentType)
	res, err := c.storage().Do(req)
	if err != nil {
		return "", &NetworkError{Method: http.MethodPut, Path: "upload put_url", Err: err}
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode/100 != 2 {
		return "", decodeError(res.StatusCode, res.Header, c.scrub(msg))
	}
	etag := res.Header.Get("ETag")
	if etag == "" {
		return "", fmt.Errorf("upload: the storage answered no etag")
	}
	return etag, nil
}
