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
// large histories (100,000 tasks in about 15 seconds, a million in a few
// minutes).
func WriteFixture(path string, n int, from, to time.Time) error {
	return WriteFixtureInFlight(path, n, -1, from, to)
}

// fixtureChunk is how many staged rows WriteFixture moves into tasks in one
// statement.
const fixtureChunk = 20_000

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
	// The staging table and the statement journals in memory, and a page
	// cache that holds the indexes being filled: at a million tasks the
	// default 2 MB cache writes and reads back the same pages over and over.
	if _, err := s.w.ExecContext(ctx, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The rows are staged and moved into tasks fixtureChunk at a time: the
	// triggers still keep every count, total, prompt and the search index,
	// but an INSERT of one row each made SQLite journal every statement
	// and FTS5 write its pending terms to disk after each (46 seconds for
	// 100,000 tasks, 12 this way); one statement per chunk does both once.
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE fixture_tasks (task_id, operation, model, prompt, state,
		credits, request, created_at)`); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO fixture_tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	flush := func() error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (task_id, operation, model, prompt, state,
			credits, request, created_at, updated_at)
			SELECT task_id, operation, model, prompt, state, credits, request, created_at, created_at
			FROM fixture_tasks ORDER BY rowid`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM fixture_tasks`)
		return err
	}
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
			prompt.String(), state, rng.IntN(60), string(req), created); err != nil {
			return err
		}
		if (i+1)%fixtureChunk == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return tx.Commit()
}
