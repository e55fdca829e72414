package history

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// The usual time is the median of the successes of that operation and
// model alone, from creation to success.
func TestUsualDuration(t *testing.T) {
	ctx := context.Background()
	st, clk := newStore(t)
	finish := func(op api.Operation, model, id, state string, took time.Duration) {
		t.Helper()
		local, err := st.BeginSubmit(ctx, record.Intent{Operation: op, Model: model, Body: []byte(`{"prompt":"p"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: id}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(took)
		if _, err := st.ApplyResult(ctx, id, record.Update{State: state}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
	}
	finish(api.OpText2Video, "svcq1", "1", api.StateSuccess, 60*time.Second)
	finish(api.OpText2Video, "svcq1", "2", api.StateSuccess, 90*time.Second)
	finish(api.OpText2Video, "svcq1", "3", api.StateSuccess, 300*time.Second)
	finish(api.OpText2Video, "svcq1", "4", api.StateFailed, 5*time.Second)
	finish(api.OpText2Video, "svcq3-pro", "5", api.StateSuccess, 10*time.Second)
	finish(api.OpMV, "", "6", api.StateSuccess, 7*time.Minute)

	cases := []struct {
		op    api.Operation
		model string
		want  record.Usual
	}{
		{api.OpText2Video, "svcq1", record.Usual{Median: 90 * time.Second, Samples: 3}},
		{api.OpText2Video, "svcq3-pro", record.Usual{Median: 10 * time.Second, Samples: 1}},
		{api.OpMV, "", record.Usual{Median: 7 * time.Minute, Samples: 1}},
		{api.OpImg2Video, "svcq1", record.Usual{}},
	}
	for _, c := range cases {
		got, err := st.UsualDuration(ctx, c.op, c.model)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.op, c.model, got, c.want)
		}
	}
}

// A success the creation answer itself reported (a synchronous task, no
// wait at all) says nothing of how long a task waits: it is no sample.
func TestUsualDurationLeavesOutSynchronousSuccesses(t *testing.T) {
	ctx := context.Background()
	st, clk := newStore(t)
	local, err := st.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioClone, Body: []byte(`{"voice_id":"v1","audio_url":"https://e.com/a.mp3"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: "sync", State: api.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	local, err = st.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioClone, Body: []byte(`{"voice_id":"v2","audio_url":"https://e.com/a.mp3"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: "async"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(40 * time.Second)
	if _, err := st.ApplyResult(ctx, "async", record.Update{State: api.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.UsualDuration(ctx, api.OpAudioClone, ""); err != nil || got != (record.Usual{Median: 40 * time.Second, Samples: 1}) {
		t.Errorf("usual %+v, %v; want 40s from the one task that waited", got, err)
	}
}
