package history

import (
	"clapper/record"
	"context"
	"testing"
	"time"
)

func TestUploadsAreFoundByTheirBytesWhileValid(t *testing.T) {
	s, clock := newStore(t)
	ctx := context.Background()
	now := clock.Now()
	u := record.Upload{SHA256: "abc", URI: "ssupload:?id=1", ContentType: "image/png", Size: 10, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.RecordUpload(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.UploadOf(ctx, "abc", now.Add(time.Minute)); err != nil || !ok || got.URI != u.URI {
		t.Errorf("UploadOf = %+v %v %v", got, ok, err)
	}
	if _, ok, _ := s.UploadOf(ctx, "abc", now.Add(time.Hour)); ok {
		t.Error("an upload past its expiry is not reused")
	}
	if err := s.ForgetUpload(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.UploadOf(ctx, "abc", now); ok {
		t.Error("a forgotten upload is not reused")
	}
}

func TestSubjectsAreKeptAndUpdated(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.RecordSubject(ctx, record.Subject{ID: "s2", Name: "mia", Images: []string{"https://e.com/a.png"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordSubject(ctx, record.Subject{ID: "s1", Name: "bob"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordSubject(ctx, record.Subject{ID: "s2", Name: "mia", Style: "ink", Images: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Subjects(ctx)
	if err != nil || len(got) != 2 || got[0].Name != "bob" || got[1].Style != "ink" || len(got[1].Images) != 2 || got[0].Images == nil {
		t.Errorf("Subjects = %+v %v", got, err)
	}
}
