package studio

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
)

// CreateSubject stores a subject with the service and keeps it in the
// library. The body has the subject's fields by name (name, images,
// videos, voice_id, style, description); local files must already be data
// URIs. It is checked as the service checks it, nothing is sent otherwise.
func (s *Studio) CreateSubject(ctx context.Context, body map[string]any) (*record.Subject, error) {
	return s.saveSubject(ctx, "", body)
}

// UpdateSubject changes a stored subject: the fields given replace the
// old ones (images and videos whole).
func (s *Studio) UpdateSubject(ctx context.Context, id string, body map[string]any) (*record.Subject, error) {
	return s.saveSubject(ctx, id, body)
}

func (s *Studio) saveSubject(ctx context.Context, id string, body map[string]any) (*record.Subject, error) {
	spec := catalog.SubjectSpec(id != "")
	if errs := spec.Validate(body); errs != nil {
		return nil, errs
	}
	var sb *api.StoredSubject
	var err error
	if id == "" {
		sb, err = s.client.CreateSubject(ctx, body)
	} else {
		sb, err = s.client.UpdateSubject(ctx, id, body)
	}
	if err != nil {
		return nil, err
	}
	rec := librarySubject(*sb)
	if err := s.store.RecordSubject(ctx, rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

func librarySubject(sb api.StoredSubject) record.Subject {
	return record.Subject{ID: sb.ID, Name: sb.Name, Images: sb.Images, Videos: sb.Videos,
		VoiceID: sb.VoiceID, Style: sb.Style, Description: sb.Description}
}

// Subjects is the subject library: the stored subjects this backend made
// or read.
func (s *Studio) Subjects(ctx context.Context) ([]record.Subject, error) {
	return s.store.Subjects(ctx)
}

// SyncSubjects reads every stored subject of the account from the service
// into the library and answers the library.
func (s *Studio) SyncSubjects(ctx context.Context) ([]record.Subject, error) {
	q := api.SubjectQuery{Count: 100}
	for {
		page, err := s.client.ListSubjects(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, sb := range page.Subjects {
			if err := s.store.RecordSubject(ctx, librarySubject(sb)); err != nil {
				return nil, err
			}
		}
		if page.NextPageToken == "" || page.NextPageToken == q.PageToken || len(page.Subjects) == 0 {
			break
		}
		q.PageToken = page.NextPageToken
	}
	return s.store.Subjects(ctx)
}

// UnknownSubjectError names a reference2video server_id that neither the
// library nor the service knows.
type UnknownSubjectError struct {
	Index int
	ID    string
}

func (e *UnknownSubjectError) Error() string {
	return fmt.Sprintf("subjects[%d].server_id: no stored subject %q in your library or on the service; clapper subjects lists them", e.Index, e.ID)
}

// checkServerIDs refuses a reference2video request naming a stored subject
// that neither the library nor the service knows: the task would fail.
// Subjects found on the service are added to the library.
func (s *Studio) checkServerIDs(ctx context.Context, op api.Operation, body map[string]any) error {
	if op != api.OpReference2Video {
		return nil
	}
	items, _ := body["subjects"].([]any)
	want := map[string]int{}
	for i, it := range items {
		obj, _ := it.(map[string]any)
		if id, _ := obj["server_id"].(string); strings.TrimSpace(id) != "" {
			if _, seen := want[id]; !seen {
				want[id] = i
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	lib, err := s.store.Subjects(ctx)
	if err != nil {
		return err
	}
	var ask []string
	for id := range want {
		if !slices.ContainsFunc(lib, func(sb record.Subject) bool { return sb.ID == id }) {
			ask = append(ask, id)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	slices.Sort(ask)
	page, err := s.client.ListSubjects(ctx, api.SubjectQuery{IDs: ask, Count: min(len(ask), 100)})
	if err != nil {
		return fmt.Errorf("checking stored subjects %s: %w", strings.Join(ask, ", "), err)
	}
	for _, sb := range page.Subjects {
		if err := s.store.RecordSubject(ctx, librarySubject(sb)); err != nil {
			return err
		}
	}
	for _, id := range ask {
		if !slices.ContainsFunc(page.Subjects, func(sb api.StoredSubject) bool { return sb.ID == id }) {
			return &UnknownSubjectError{Index: want[id], ID: id}
		}
	}
	return nil
}
