package studio

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
	// The service's text is held to the bounds the spec gives it before
	// it is stored or shown: a 5 MB description is no description.
	spec := catalog.SubjectSpec(true)
	cut := func(field, s string) string {
		if f, ok := spec.Field(field); ok && f.MaxChars > 0 && utf8.RuneCountInString(s) > f.MaxChars {
			return string([]rune(s)[:f.MaxChars]) + "…"
		}
		return s
	}
	list := func(field string, vs []string) []string {
		if f, ok := spec.Field(field); ok && f.MaxItems > 0 && len(vs) > f.MaxItems {
			return vs[:f.MaxItems]
		}
		return vs
	}
	return record.Subject{ID: sb.ID, Name: cut("name", sb.Name), Images: list("images", sb.Images), Videos: list("videos", sb.Videos),
		VoiceID: sb.VoiceID, Style: cut("style", sb.Style), Description: cut("description", sb.Description)}
}

// Subjects is the subject library: the stored subjects this backend made
// or read.
func (s *Studio) Subjects(ctx context.Context) ([]record.Subject, error) {
	return s.store.Subjects(ctx)
}

// maxSubjectPages bounds how many pages of subjects one sync reads (of 100
// each): a service that always answers with a next page token would keep
// it paging for ever.
const maxSubjectPages = 100

// SyncSubjects reads every stored subject of the account from the service
// into the library and answers the library. A service that pages past
// maxSubjectPages, or hands a page token back a second time, is stopped
// there, and the error says so (what was read is in the library).
func (s *Studio) SyncSubjects(ctx context.Context) ([]record.Subject, error) {
	q := api.SubjectQuery{Count: 100}
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		if pages > maxSubjectPages {
			return nil, fmt.Errorf("the service listed more than %d pages of stored subjects (%d); stopped there, and the library keeps what was read", maxSubjectPages, maxSubjectPages*q.Count)
		}
		page, err := s.client.ListSubjects(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, sb := range page.Subjects {
			if err := s.store.RecordSubject(ctx, librarySubject(sb)); err != nil {
				return nil, err
			}
		}
		if page.NextPageToken == "" || seen[page.NextPageToken] || len(page.Subjects) == 0 {
			break
		}
		seen[page.NextPageToken] = true
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
