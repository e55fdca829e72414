package api

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Callback signature headers, as the service sends them.
const (
	HeaderNonce         = "x-request-nonce"
	HeaderSignedHeaders = "X-HMAC-SIGNED-HEADERS"
	HeaderAlgorithm     = "X-HMAC-ALGORITHM"
	HeaderAccessKey     = "X-HMAC-ACCESS-KEY"
	HeaderSignature     = "X-HMAC-SIGNATURE"

	signedHeaders   = "Date;x-request-nonce"
	signatureAlgo   = "hmac-sha256"
	callbackAccessK = "vidu"
)

// CallbackSignature computes the service's signature of a callback request
// (path as sent on the wire, still escaped, so receivers in any language can
// check it against the raw request line):
// base64(HMAC-SHA256(token, METHOD\npath\nrawquery\nvidu\nDate\nDate:<d>\nx-request-nonce:<n>\n)).
func CallbackSignature(token, method, path, rawQuery, date, nonce string) string {
	s := method + "\n" + path + "\n" + rawQuery + "\n" + callbackAccessK + "\n" + date + "\n" +
		"Date:" + date + "\n" + HeaderNonce + ":" + nonce + "\n"
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignCallback sets the signature headers on an outgoing callback request.
func SignCallback(req *http.Request, token string, now time.Time) {
	date := now.UTC().Format(http.TimeFormat)
	var n [16]byte
	_, _ = rand.Read(n[:])
	nonce := hex.EncodeToString(n[:])
	req.Header.Set("Date", date)
	req.Header.Set(HeaderNonce, nonce)
	req.Header.Set(HeaderSignedHeaders, signedHeaders)
	req.Header.Set(HeaderAlgorithm, signatureAlgo)
	req.Header.Set(HeaderAccessKey, callbackAccessK)
	req.Header.Set(HeaderSignature, CallbackSignature(token, req.Method, req.URL.EscapedPath(), req.URL.RawQuery, date, nonce))
}

// ErrBadSignature is any callback that is unsigned, forged or stale.
var ErrBadSignature = errors.New("callback signature invalid")

// VerifyCallback checks an incoming callback's signature and that its Date
// lies within maxSkew of now.
func VerifyCallback(req *http.Request, token string, now time.Time, maxSkew time.Duration) error {
	h := req.Header
	sig, date, nonce := h.Get(HeaderSignature), h.Get("Date"), h.Get(HeaderNonce)
	if sig == "" || date == "" || nonce == "" {
		return fmt.Errorf("%w: missing signature headers", ErrBadSignature)
	}
	if h.Get(HeaderAlgorithm) != signatureAlgo || h.Get(HeaderAccessKey) != callbackAccessK {
		return fmt.Errorf("%w: unexpected algorithm or access key", ErrBadSignature)
	}
	want := CallbackSignature(token, req.Method, req.URL.EscapedPath(), req.URL.RawQuery, date, nonce)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return fmt.Errorf("%w: signature mismatch", ErrBadSignature)
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return fmt.Errorf("%w: unreadable Date", ErrBadSignature)
	}
	if d := now.Sub(t); d > maxSkew || d < -maxSkew {
		return fmt.Errorf("%w: Date %s is outside %s of now", ErrBadSignature, date, maxSkew)
	}
	return nil
}
