package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/studio"
)

type accountOut struct {
	// Credits are what the account has left to spend.
	Credits int64 `json:"credits"`
	// Running, Queued and Limit are the service's own count of the
	// account's tasks and how many it runs at once; Concurrency says the
	// service told them.
	Concurrency bool  `json:"concurrency_known"`
	Running     int64 `json:"running,omitempty"`
	Queued      int64 `json:"queued,omitempty"`
	Limit       int64 `json:"limit,omitempty"`
	// Spent is what this history's tasks cost today and this month; Caps
	// the credit caps an agent's sends are held to.
	SpentToday int64            `json:"spent_today"`
	SpentMonth int64            `json:"spent_month"`
	Caps       []studio.CapRoom `json:"caps"`
	// ConfirmAbove is the price past which a create asks the person
	// first (0: price alone never asks).
	ConfirmAbove int64  `json:"confirm_above"`
	Service      string `json:"service"`
}

func (a accountOut) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d credits left.", a.Service, a.Credits)
	if a.Concurrency {
		fmt.Fprintf(&b, " %d running, %d queued, %d at once at most.", a.Running, a.Queued, a.Limit)
	}
	fmt.Fprintf(&b, " Spent %d credits today, %d this month.", a.SpentToday, a.SpentMonth)
	for _, c := range a.Caps {
		b.WriteString(" Cap of " + c.String() + ".")
	}
	if a.ConfirmAbove > 0 {
		fmt.Fprintf(&b, " A create above %d credits asks the person first.", a.ConfirmAbove)
	}
	return b.String()
}

type cancelOut struct {
	TaskID string `json:"task_id"`
	State  string `json:"state"`
}

func (c cancelOut) summary() string {
	return fmt.Sprintf("Task %s cancelled: %s. Nothing more is charged for it.", c.TaskID, c.State)
}

func (s *Server) addAccountTools() {
	add(s, SetAccount, &sdk.Tool{Name: "get_account", Title: "The account", Annotations: readsService,
		Description: "Credits left, tasks running and queued and the limit at once, spending today and this month, and the caps."},
		s.getAccount)
	add(s, SetTasks, &sdk.Tool{Name: "cancel_task", Title: "Cancel a task", Annotations: cancels,
		Description: "Cancels a task still queued or held for off-peak; a running one cannot be."},
		s.cancelTask)
}

func (s *Server) getAccount(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, accountOut, error) {
	c, err := s.studio.Account(ctx)
	if err != nil {
		return nil, accountOut{}, fmt.Errorf("the account could not be read: %s", api.CleanText(err.Error()))
	}
	sp, err := s.studio.Spent(ctx)
	if err != nil {
		return nil, accountOut{}, err
	}
	rooms, err := s.studio.CapRooms(ctx)
	if err != nil {
		return nil, accountOut{}, err
	}
	out := accountOut{Credits: int64(c.Remaining), Concurrency: c.HasConcurrency, SpentToday: sp.Today, SpentMonth: sp.Month,
		Caps: rooms, ConfirmAbove: s.opts.Consent.Above, Service: "the service"}
	if rooms == nil {
		out.Caps = []studio.CapRoom{}
	}
	if s.studio.Sandbox() {
		out.Service = "the sandbox (simulated; nothing is spent)"
	}
	if c.HasConcurrency {
		out.Running, out.Queued, out.Limit = int64(c.Running), int64(c.Queued), int64(c.Limit)
	}
	return nil, out, nil
}

func (s *Server) cancelTask(ctx context.Context, _ *sdk.CallToolRequest, in taskIn) (*sdk.CallToolResult, cancelOut, error) {
	t, err := s.task(ctx, in.TaskID)
	if err != nil {
		return nil, cancelOut{}, err
	}
	if !studio.Cancellable(t) {
		return nil, cancelOut{}, fmt.Errorf("%s", cancelRefusal(t.TaskID, t.State, t.Operation, t.OffPeak))
	}
	if err := s.studio.Cancel(ctx, t); err != nil {
		return nil, cancelOut{}, fmt.Errorf("task %s was not cancelled: %s", api.CleanText(t.TaskID), api.CleanText(err.Error()))
	}
	t, err = s.task(ctx, t.TaskID)
	if err != nil {
		return nil, cancelOut{}, err
	}
	return nil, cancelOut{TaskID: api.CleanText(t.TaskID), State: t.State}, nil
}

// cancelRefusal says why the service would not cancel a task.
func cancelRefusal(id, state string, op api.Operation, offPeak bool) string {
	id = api.CleanText(id)
	switch {
	case id == "":
		return "this request was never sent: there is no task to cancel"
	case op.IsOneClick():
		return fmt.Sprintf("task %s is a %s job: the service cancels no one-click job", id, op)
	case api.IsTerminal(state):
		return fmt.Sprintf("task %s has already ended (%s): there is nothing to cancel", id, api.DescribeState(state))
	case state == api.StateProcessing && !offPeak:
		return fmt.Sprintf("task %s is already being made: the service cancels only a task still in its queue or held for off-peak", id)
	}
	return fmt.Sprintf("task %s is %s: the service cancels only a task still in its queue or held for off-peak", id, api.DescribeState(state))
}
