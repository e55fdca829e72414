package history

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"clapper/api"
	"clapper/record"
)

// Readers run while the writer works; every read sees a consistent snapshot
// (a task never appears without its events) and never fails with BUSY.
func TestConcurrentReadersOneWriter(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	const writes = 150
	var (
		wg   sync.WaitGroup
		done = make(chan struct{})
		errs = make(chan error, 16)
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := range writes {
			tid := fmt.Sprint("tk-", i)
			id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"concurrent"}`)})
			if err == nil {
				err = s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: tid})
			}
			if err == nil {
				_, err = s.ApplyResult(ctx, tid, record.Update{State: api.StateSuccess, Credits: 1})
			}
			if err != nil {
				errs <- fmt.Errorf("writer: %w", err)
				return
			}
		}
	}()
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				counts, err := s.CountsByState(ctx, record.Filter{})
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				total := 0
				for _, n := range counts {
					total += n
				}
				if total < last {
					errs <- fmt.Errorf("reader %d: count went back from %d to %d", r, last, total)
					return
				}
				last = total
				p, err := s.Tasks(ctx, record.Filter{Limit: 10})
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				if len(p.Tasks) == 0 {
					continue
				}
				task, err := s.Task(ctx, p.Tasks[0].LocalID)
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				// Events are written in the same transaction as the state.
				if n := len(task.Events); task.State == api.StateSuccess && n != 3 ||
					task.State == api.StateCreated && n != 2 || task.State == record.StateSubmitting && n != 1 {
					errs <- fmt.Errorf("reader %d: task %s with %d events", r, task.State, n)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	counts, err := s.CountsByState(ctx, record.Filter{})
	if err != nil || counts[api.StateSuccess] != writes {
		t.Errorf("final counts %v %v", counts, err)
	}
}

// Goroutines of one store, and a second store on the same file (a second
// clapper), write at once: the single writer queues them, the busy timeout
// and IMMEDIATE transactions sort out the other process.
func TestConcurrentWritersTwoStores(t *testing.T) {
	open := sharedDatabase(t)
	a, b := open(), open()
	ctx := context.Background()
	const per = 40
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 6 {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{}`)})
				if err == nil {
					err = s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: fmt.Sprintf("g%d-%d", g, i)})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	counts, err := b.CountsByState(ctx, record.Filter{})
	if err != nil || counts[api.StateCreated] != 6*per {
		t.Errorf("counts %v %v, want %d created", counts, err, 6*per)
	}
}
