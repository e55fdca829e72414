package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Error is a request the service rejected, as its error body says.
type Error struct {
	Status  int      // HTTP status
	Reason  string   // e.g. FieldInvalid
	Message string   // the service's message, e.g. "invalid field: duration"
	Fields  []string // fields named in metadata.fields
	TraceID string   // metadata.trace_id or the x-md-trace-id header: what support asks for

	// RetryAfter is the server's Retry-After hint, zero when none was sent.
	RetryAfter string
}

// ErrorBody is the wire shape of a rejection.
type ErrorBody struct {
	Code     int           `json:"code"`
	Reason   string        `json:"reason"`
	Message  string        `json:"message"`
	Metadata ErrorMetadata `json:"metadata"`
}

func (b *ErrorBody) UnmarshalJSON(data []byte) error {
	type plain ErrorBody
	return decodeClean(data, (*plain)(b))
}

type ErrorMetadata struct {
	TraceID string   `json:"trace_id,omitempty"`
	Fields  []string `json:"fields,omitempty"`
}

// TraceHeader carries the trace id of every response.
const TraceHeader = "x-md-trace-id"

func (e *Error) Error() string {
	var b strings.Builder
	reason := e.Reason
	if reason == "" {
		reason = http.StatusText(e.Status)
	}
	fmt.Fprintf(&b, "%s (HTTP %d)", reason, e.Status)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Fields) > 0 && !mentionsAll(e.Message, e.Fields) {
		fmt.Fprintf(&b, " [fields: %s]", strings.Join(e.Fields, ", "))
	}
	if e.TraceID != "" {
		fmt.Fprintf(&b, " (trace id %s)", e.TraceID)
	}
	return b.String()
}

func mentionsAll(msg string, fields []string) bool {
	for _, f := range fields {
		if !strings.Contains(msg, f) {
			return false
		}
	}
	return true
}

// Explanation is the plain-language meaning of the reason, for the UI.
func (e *Error) Explanation() string { return Explain(e.Reason, e.Status) }

// Temporary reports whether the same request may succeed later unchanged.
func (e *Error) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// TaskUnknown reports the service's own answer that it does not know a
// task: a 404 whose JSON body names TaskNotFound. Any other 404 (a proxy's
// HTML page, a wrong path) says nothing about the task and is transient.
func (e *Error) TaskUnknown() bool {
	return e.Status == http.StatusNotFound && e.Reason == ReasonTaskNotFound
}

// AsError returns the service rejection inside err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Reasons the service gives for rejecting a request or failing a task.
const (
	ReasonBadRequest                = "BadRequest"
	ReasonFieldLacking              = "FieldLacking"
	ReasonFieldUnwanted             = "FieldUnwanted"
	ReasonFieldItemCountOutOfRange  = "FieldItemCountOutOfRange"
	ReasonFieldInvalid              = "FieldInvalid"
	ReasonPageSizeOutOfRange        = "PageSizeOutOfRange"
	ReasonImageDownloadFailure      = "ImageDownloadFailure"
	ReasonOperationInProcess        = "OperationInProcess"
	ReasonTaskPromptPolicyViolation = "TaskPromptPolicyViolation"
	ReasonImageFormatInvalid        = "ImageFormatInvalid"
	ReasonAuditSubmitIllegal        = "AuditSubmitIllegal"
	ReasonCreditInsufficient        = "CreditInsufficient"
	ReasonCreationPolicyViolation   = "CreationPolicyViolation"
	ReasonModelUnavailable          = "ModelUnavailable"
	ReasonUserCancelled             = "UserCancelled"
	ReasonImageCheckBodyJoints      = "ImageCheckBodyJointsFailed"
	ReasonImageCheckFace            = "ImageCheckFaceFailed"
	ReasonImageObjectsUndetected    = "ImageObjectsUndetected"
	ReasonUnauthorized              = "Unauthorized"
	ReasonForbidden                 = "Forbidden"
	ReasonTaskNotFound              = "TaskNotFound"
	ReasonCreationNotFound          = "CreationNotFound"
	ReasonNotFound                  = "NotFound"
	ReasonConflict                  = "Conflict"
	ReasonQuotaExceeded             = "QuotaExceeded"
	ReasonTooManyRequests           = "TooManyRequests"
	ReasonSystemThrottling          = "SystemThrottling"
	ReasonCanceled                  = "Canceled"
	ReasonInternalServiceFailure    = "InternalServiceFailure"
)

// ReasonStatus is the HTTP status the service answers each reason with.
var ReasonStatus = map[string]int{
	ReasonBadRequest: 400, ReasonFieldLacking: 400, ReasonFieldUnwanted: 400,
	ReasonFieldItemCountOutOfRange: 400, ReasonFieldInvalid: 400, ReasonPageSizeOutOfRange: 400,
	ReasonImageDownloadFailure: 400, ReasonOperationInProcess: 400, ReasonTaskPromptPolicyViolation: 400,
	ReasonImageFormatInvalid: 400, ReasonAuditSubmitIllegal: 400, ReasonCreditInsufficient: 400,
	ReasonCreationPolicyViolation: 400, ReasonModelUnavailable: 400, ReasonUserCancelled: 400,
	ReasonImageCheckBodyJoints: 400, ReasonImageCheckFace: 400, ReasonImageObjectsUndetected: 400,
	ReasonUnauthorized: 401, ReasonForbidden: 403,
	ReasonTaskNotFound: 404, ReasonCreationNotFound: 404, ReasonNotFound: 404,
	ReasonConflict:      409,
	ReasonQuotaExceeded: 429, ReasonTooManyRequests: 429, ReasonSystemThrottling: 429,
	ReasonCanceled: 499, ReasonInternalServiceFailure: 500,
}

var explanations = map[string]string{
	ReasonBadRequest:                "The service could not accept the request as sent.",
	ReasonFieldLacking:              "A required field is missing or empty.",
	ReasonFieldUnwanted:             "A field was sent that this operation or model does not accept.",
	ReasonFieldItemCountOutOfRange:  "A list field has too many or too few items.",
	ReasonFieldInvalid:              "A field's value is not allowed.",
	ReasonPageSizeOutOfRange:        "The requested page size is out of range.",
	ReasonImageDownloadFailure:      "The service could not download an input image; check that its URL is public and still valid.",
	ReasonOperationInProcess:        "Another operation on this resource is still running; wait for it to finish.",
	ReasonTaskPromptPolicyViolation: "The prompt was refused by the content policy; rephrase it.",
	ReasonImageFormatInvalid:        "An input image is not png, jpeg or webp, or could not be decoded.",
	ReasonAuditSubmitIllegal:        "The input was refused by the content review.",
	ReasonCreditInsufficient:        "The account has too few credits for this task; top up and resubmit.",
	ReasonCreationPolicyViolation:   "The generated result was withheld by the content policy.",
	ReasonModelUnavailable:          "The model is not available right now; try another model or later.",
	ReasonUserCancelled:             "The task was cancelled.",
	ReasonImageCheckBodyJoints:      "No usable body pose was found in the input image.",
	ReasonImageCheckFace:            "No usable face was found in the input image.",
	ReasonImageObjectsUndetected:    "No usable subject was found in the input image.",
	ReasonUnauthorized:              "The API key is missing or wrong; check CLAPPER_API_KEY.",
	ReasonForbidden:                 "The API key may not do this, or a result URL has expired.",
	ReasonTaskNotFound:              "No task with this id exists for this account.",
	ReasonCreationNotFound:          "No result with this id exists for this account.",
	ReasonNotFound:                  "The path or resource does not exist.",
	ReasonConflict:                  "The request conflicts with the current state (for example a voice id already in use).",
	ReasonQuotaExceeded:             "Too many tasks are running for this account; the request was kept and can be resubmitted once others finish.",
	ReasonTooManyRequests:           "Too many requests in a short time; wait a moment before sending more.",
	ReasonSystemThrottling:          "The service is busy; try again shortly.",
	ReasonCanceled:                  "Cancelled by the service: an off-peak task not generated within 48 hours is cancelled and its credits returned.",
	ReasonInternalServiceFailure:    "The service failed internally; try again, and quote the trace id if it persists.",
}

// Explain gives the plain-language meaning of a reason or err_code; an
// unknown reason falls back to what the HTTP status means.
func Explain(reason string, status int) string {
	if s, ok := explanations[reason]; ok {
		return s
	}
	switch {
	case status == 0:
		return "The service reported " + reason + "."
	case status >= 500:
		return "The service failed; try again later."
	case status == 429:
		return "The service asks to slow down."
	default:
		return "The service rejected the request (" + http.StatusText(status) + ")."
	}
}

// decodeError builds an Error from a non-2xx response; the body decodes
// cleaned (ErrorBody), and what comes from headers or a body that is not
// JSON is cleaned here.
func decodeError(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status, TraceID: CleanText(header.Get(TraceHeader)), RetryAfter: CleanText(header.Get("Retry-After"))}
	var eb ErrorBody
	if json.Unmarshal(body, &eb) == nil {
		e.Reason, e.Message, e.Fields = eb.Reason, eb.Message, eb.Metadata.Fields
		if eb.Metadata.TraceID != "" {
			e.TraceID = eb.Metadata.TraceID
		}
	}
	if e.Message == "" && isWebPage(header, body) {
		// A proxy's or a web server's page: its markup says nothing, the
		// wrong address does.
		e.Message = "the address answered with a web page, not the service's answer: is the service address right?"
		if m := pageTitle.FindSubmatch(truncate(body, 64<<10)); m != nil {
			e.Message = fmt.Sprintf("the address answered with a web page (%q), not the service's answer: is the service address right?",
				CapText(strings.TrimSpace(CleanLine(string(m[1]))), maxWord))
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(CleanText(string(truncate(body, 200))))
	}
	e.Message = CapText(e.Message, MaxMessage)
	e.Reason, e.TraceID, e.RetryAfter = CapText(e.Reason, maxWord), CapText(e.TraceID, maxWord), CapText(e.RetryAfter, maxWord)
	if len(e.Fields) > maxFields {
		e.Fields = e.Fields[:maxFields]
	}
	for i, f := range e.Fields {
		e.Fields[i] = CapText(f, maxWord)
	}
	return e
}

// pageTitle finds a web page's title.
var pageTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// isWebPage reports an answer that is an HTML page rather than JSON.
func isWebPage(header http.Header, body []byte) bool {
	if strings.Contains(strings.ToLower(header.Get("Content-Type")), "html") {
		return true
	}
	head := strings.ToLower(strings.TrimSpace(string(truncate(body, 64))))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

// MaxMessage is the most of a service's error message clapper keeps, prints
// and stores: a real one is a sentence, so more is noise or an attack.
const MaxMessage = 2000

// maxWord caps one-word texts (reason, trace id, field names) and maxFields
// the fields one rejection names.
const (
	maxWord   = 80
	maxFields = 20
)

// CapText cuts s to at most n bytes (on a rune boundary) and says how long
// the whole was, so a cut text is never mistaken for the whole.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (cut; %s in all)", ByteSize(int64(len(s))))
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "…"...)
	}
	return b
}
