package history

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"clapper/api"
	"clapper/record"
)

var (
	fixtureWords = strings.Fields(`a the red blue green fox whale kite storm sea city night neon rain
		slow fast camera pan zoom dancer portrait product bottle shoe forest desert snow sunrise
		cinematic drone close-up wide smiling running flying glowing ancient future robot cat dog`)
	fixtureOps    = []api.Operation{api.OpText2Video, api.OpImg2Video, api.OpReference2Video, api.OpReference2Image, api.OpAudioTTS}
	fixtureModels = []string{"svcq1", "svcq2", "svcq2-pro", "svcq3", ""}
	// Mostly finished, as a real history is.
	fixtureStates = []string{api.StateSuccess, api.StateSuccess, api.StateSuccess, api.StateSuccess,
		api.StateSuccess, api.StateSuccess, api.StateFailed, api.StateProcessing, api.StateQueueing, record.StateRejected}
)

// WriteFixture fills a history with n tasks spread evenly from from to to,
// with varied prompts, operations, models and states (mostly finished, as a
// real history is; a fifth in flight), fast: for benchmarks and demos of
// large histories.
func WriteFixture(path string, n int, from, to time.Time) error {
	return WriteFixtureInFlight(path, n, -1, from, to)
}

// WriteFixtureInFlight is WriteFixture with exactly inFlight tasks in
// flight, the newest ones (queueing and processing in turn); the others
// that would be end in success. A negative inFlight keeps WriteFixture's mix.
func WriteFixtureInFlight(path string, n, inFlight int, from, to time.Time) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO tasks (task_id, operation, model, prompt, state,
		credits, request, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	base := from.UnixMilli()
	step := max(to.Sub(from).Milliseconds()/int64(max(n, 1)), 1)
	var prompt strings.Builder
	for i := range n {
		prompt.Reset()
		for w := range 8 + rng.IntN(10) {
			if w > 0 {
				prompt.WriteByte(' ')
			}
			prompt.WriteString(fixtureWords[rng.IntN(len(fixtureWords))])
		}
		state := fixtureStates[rng.IntN(len(fixtureStates))]
		switch {
		case inFlight < 0:
		case i >= n-inFlight:
			state = []string{api.StateQueueing, api.StateProcessing}[i%2]
		case followed(state):
			state = api.StateSuccess
		}
		var taskID any = fmt.Sprintf("%016x", rng.Uint64())
		if state == record.StateRejected {
			taskID = nil
		}
		created := base + int64(i)*step
		// The request holds the prompt, as a sent one does: the prompt
		// memory (the prompts table) is kept from it.
		req, err := json.Marshal(map[string]string{"prompt": prompt.String()})
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, taskID, fixtureOps[rng.IntN(len(fixtureOps))], fixtureModels[rng.IntN(len(fixtureModels))],
			prompt.String(), state, rng.IntN(60), string(req), created, created); err != nil {
			return err
		}
	}
	return tx.Commit()
}
