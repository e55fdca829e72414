// Package api is the wire contract of the svc generative-media task service:
// the request and response types of every path, a Client that speaks it, the
// service's error body, retry rules and the callback signature.
//
// It imports nothing else of clapper. Rules about which fields a model accepts
// live in api/catalog; this package only knows shapes.
package api

import (
	"fmt"
	"strings"
)

// Operation names a creation path by its last segment, as users and the CLI
// spell it (clapper create img2video ...).
type Operation string

const (
	OpReference2Video   Operation = "reference2video"
	OpImg2Video         Operation = "img2video"
	OpText2Video        Operation = "text2video"
	OpStartEnd2Video    Operation = "start-end2video"
	OpReference2Image   Operation = "reference2image"
	OpAudioClone        Operation = "audio-clone"
	OpAudioTTS          Operation = "audio-tts"
	OpTiming2Audio      Operation = "timing2audio"
	OpLipSync           Operation = "lip-sync"
	OpTemplateStory     Operation = "template-story"
	OpTrendingReplicate Operation = "trending-replicate"
	OpMV                Operation = "mv"
	OpPremiumMV         Operation = "premium_mv"
	OpGeneralOneClick   Operation = "general_one_click"

	// The operations the service added beyond the spec's tables (service
	// notes, "The service in 2026").
	OpExtend         Operation = "extend"
	OpMultiframe     Operation = "multiframe"
	OpUpscaleNew     Operation = "upscale-new"
	OpText2Audio     Operation = "text2audio"
	OpTemplate2Video Operation = "template2video"
)

// Operations lists the creation operations: the spec's fourteen in its
// order, then the five the service added since, in the notes' order.
func Operations() []Operation {
	return []Operation{
		OpReference2Video, OpImg2Video, OpText2Video, OpStartEnd2Video,
		OpReference2Image, OpAudioClone, OpAudioTTS, OpTiming2Audio,
		OpLipSync, OpTemplateStory, OpTrendingReplicate,
		OpMV, OpPremiumMV, OpGeneralOneClick,
		OpExtend, OpMultiframe, OpUpscaleNew, OpText2Audio, OpTemplate2Video,
	}
}

// IsSpecOperation reports whether the spec's tables list the operation;
// the others come from the service's later documentation.
func (o Operation) IsSpecOperation() bool {
	switch o {
	case OpExtend, OpMultiframe, OpUpscaleNew, OpText2Audio, OpTemplate2Video:
		return false
	}
	return true
}

// ParseOperation accepts an operation name, with '-' and '_' alike
// (premium-mv, start_end2video: agents and scripts write both), and
// reports the known ones when the name is none of them.
func ParseOperation(s string) (Operation, error) {
	fold := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	for _, op := range Operations() {
		if fold(string(op)) == fold(s) {
			return op, nil
		}
	}
	names := make([]string, 0, len(Operations()))
	for _, op := range Operations() {
		names = append(names, string(op))
	}
	return "", fmt.Errorf("unknown operation %q; choose one of %s", s, strings.Join(names, ", "))
}

// Path is the creation path of the operation under the base URL.
func (o Operation) Path() string {
	if o.IsOneClick() {
		return "/ent/v2/one-click/" + string(o)
	}
	return "/ent/v2/" + string(o)
}

// IsOneClick reports whether the creation answers {id} rather than a task echo.
func (o Operation) IsOneClick() bool {
	return o == OpMV || o == OpPremiumMV || o == OpGeneralOneClick
}

// IsSynchronous reports whether the creation call answers with a settled
// state (audio-clone and audio-tts) instead of "created".
func (o Operation) IsSynchronous() bool {
	return o == OpAudioClone || o == OpAudioTTS
}

// IsMultiScene reports whether the task is a multi-scene job, read through
// its own GET path rather than /tasks/{id}/creations.
func (o Operation) IsMultiScene() bool { return o == OpGeneralOneClick }

// States of a task or job.
const (
	StateCreated    = "created"
	StateQueueing   = "queueing"
	StateProcessing = "processing"
	StateSuccess    = "success"
	StateFailed     = "failed"
)

// IsTerminal reports whether no further state change can follow: success,
// failed, or a word the service may use for a task it ended without a result.
// The spec leaves the state of a cancelled off-peak task "not shown"; these
// are the words such services use for it, and none can be followed by more.
func IsTerminal(state string) bool {
	switch state {
	case StateSuccess, StateFailed, "cancelled", "canceled", "expired":
		return true
	}
	return false
}

// IsKnownState reports whether the spec names the state or IsTerminal knows
// it. Any other word is a state the client cannot place in the lifecycle.
func IsKnownState(state string) bool {
	switch state {
	case StateCreated, StateQueueing, StateProcessing:
		return true
	}
	return IsTerminal(state)
}

// DescribeState is a state as people read it: an unknown word is marked so,
// since nothing is known of what it means.
func DescribeState(state string) string {
	if IsKnownState(state) {
		return state
	}
	return "unknown state " + CleanText(state)
}
