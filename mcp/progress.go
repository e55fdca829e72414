package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress tells a long call's progress to a client that asked for it (a
// progress token): at once when what it says changes, and at least every
// period, so that a client which resets its timeout on progress never
// gives up on a call that is still working.
type progress struct {
	req   *sdk.CallToolRequest
	token any
	every time.Duration
	timer *time.Timer
	// last is the progress last told (the protocol wants it to grow), at
	// when, saying told.
	last float64
	at   time.Time
	told string
}

func newProgress(req *sdk.CallToolRequest, every time.Duration) *progress {
	p := &progress{req: req, token: req.Params.GetProgressToken(), every: every}
	if p.token != nil {
		p.timer = time.NewTimer(every)
	}
	return p
}

// due fires when the period has passed since the last notification; never
// when the client asked for none.
func (p *progress) due() <-chan time.Time {
	if p.timer == nil {
		return nil
	}
	return p.timer.C
}

func (p *progress) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}

// tell sends progress (of total) with msg, unless it says what the last
// notification said and the period has not passed since.
func (p *progress) tell(ctx context.Context, progress, total float64, msg string) {
	if p.token == nil || (msg == p.told && time.Since(p.at) < p.every) {
		return
	}
	// Two notifications in one millisecond still grow.
	progress = max(progress, p.last+0.001)
	p.last, p.at, p.told = progress, time.Now(), msg
	p.timer.Reset(p.every)
	p.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: progress, Total: total, Message: msg})
}
