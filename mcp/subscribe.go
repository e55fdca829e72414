package mcp

import (
	"context"
	"net/url"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
)

// subscriptions follow the tasks whose resources (clapper://task/{id})
// clients subscribed to, and tell those clients each time one changes:
// its state, its progress, a download of its results. One follower per
// task serves every client subscribed to it; it ends with the task, or
// when the last client unsubscribes.
type subscriptions struct {
	s  *Server
	mu sync.Mutex
	// uris counts the subscribers of each URI; stop ends its follower.
	uris map[string]int
	stop map[string]context.CancelFunc
}

func newSubscriptions(s *Server) *subscriptions {
	return &subscriptions{s: s, uris: map[string]int{}, stop: map[string]context.CancelFunc{}}
}

// subscribe takes a subscription to a task's resource; any other URI, or
// a task not in history, is refused.
func (u *subscriptions) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, "clapper://task/")
	if !ok {
		return sdk.ResourceNotFoundError(uri)
	}
	id, err := url.PathUnescape(rest)
	if err != nil || id == "" {
		return sdk.ResourceNotFoundError(uri)
	}
	t, err := u.s.task(ctx, id)
	if err != nil {
		return sdk.ResourceNotFoundError(uri)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.uris[uri]++
	if u.uris[uri] > 1 || t.TaskID == "" || api.IsTerminal(t.State) {
		return nil // followed already, or nothing more will move but its files
	}
	// The follower outlives this request: it ends with the task or the
	// last unsubscription, not with the subscribe call.
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	u.stop[uri] = cancel
	events := u.s.studio.Await(fctx, t)
	go func() {
		defer cancel()
		for range events {
			u.s.sdk.ResourceUpdated(fctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
		}
		u.mu.Lock()
		delete(u.stop, uri)
		u.mu.Unlock()
	}()
	return nil
}

func (u *subscriptions) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	uri := req.Params.URI
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.uris[uri] == 0 {
		return nil
	}
	if u.uris[uri]--; u.uris[uri] == 0 {
		delete(u.uris, uri)
		if stop := u.stop[uri]; stop != nil {
			stop()
			delete(u.stop, uri)
		}
	}
	return nil
}

// changed tells the subscribers of a task that it changed outside its
// follower (its files were saved).
func (u *subscriptions) changed(ctx context.Context, taskID string) {
	uri := taskURI(taskID)
	u.mu.Lock()
	n := u.uris[uri]
	u.mu.Unlock()
	if n > 0 {
		u.s.sdk.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
	}
}
