// Package scenes is the multi-scene editor's work, shared by the Scenes
// page and `clapper scenes`: read a general_one_click job with its scenes
// and their versions from history, choose the version of each scene that
// goes into the cut, edit a scene's prompt (POST .../edit) and compose the
// chosen versions (POST .../compose), each recorded at once and followed,
// and save the videos of versions. A composed video's signed URL lives
// under three minutes, so every use of one re-reads the job first.
package scenes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/track"
)

// Service does the editor's work against one backend.
type Service struct {
	Client *api.Client
	Store  record.Store
	// Watcher, when set, follows a job after an edit or a composition (the
	// TUI's, or a command's with --wait); nil leaves following to the next
	// clapper that runs one.
	Watcher *track.Watcher
	// DirFor names the folder results are saved in.
	DirFor func(api.Operation) string
	// Downloader saves the videos (the studio's, so every fetch of a result
	// obeys one policy); nil is one with the default timing.
	Downloader *track.Downloader
	// NudgeEvery is how often Wait has the watcher read a job while a
	// version runs (zero is NudgeInterval).
	NudgeEvery time.Duration
	// EditCredits is what an edit of a scene of that many seconds costs
	// when clapper knows it (the embedded sandbox's table), added to the
	// job's task and given back if the version fails (the service does not
	// charge a failed edit): the service reports no credits for a job. Nil
	// or 0 when unknown.
	EditCredits func(seconds int) int64
}

// NudgeInterval is how often a job with a version being made is read while
// someone looks at it (the editor, a --wait). The watcher's schedule
// expects a whole job's length from its first read; an edit or a
// composition takes a fraction of it, so left alone the watcher would read
// it long after it ended.
const NudgeInterval = 3 * time.Second

// Nudge has the watcher read the job as soon as its budget allows.
func (s *Service) Nudge(jobID string) {
	if s.Watcher != nil {
		s.Watcher.Wake(jobID)
	}
}

// Running reports whether a version of the job is being made.
func Running(j record.Job) bool {
	for _, recs := range [][]record.JobRecord{j.Scenes, j.Compose} {
		for _, rec := range recs {
			if cur := rec.Current(); cur.ID != "" && !api.IsTerminal(cur.State) {
				return true
			}
		}
	}
	return false
}

// PromptLimit is how many characters an edited prompt may have.
const PromptLimit = 3000

// InputError is a request clapper refuses before sending anything: a
// prompt too long, an id that is no scene of the job.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// Jobs lists the multi-scene jobs of the history, newest first.
func (s *Service) Jobs(ctx context.Context, limit int) ([]record.JobSummary, error) {
	return s.Store.JobSummaries(ctx, limit)
}

// Load reads a job as history holds it; a job history never saw is read
// from the service first.
func (s *Service) Load(ctx context.Context, jobID string) (record.Job, error) {
	j, err := s.Store.Job(ctx, jobID)
	if errors.Is(err, record.ErrNotFound) {
		return s.Refresh(ctx, jobID)
	}
	return j, err
}

// Refresh reads the job from the service, records it, and returns it as
// history now holds it (with its choices and saved files).
func (s *Service) Refresh(ctx context.Context, jobID string) (record.Job, error) {
	oc, err := s.Client.GetOneClick(ctx, jobID)
	if err != nil {
		return record.Job{}, err
	}
	if oc.ID == "" {
		oc.ID = jobID
	}
	if _, err := s.Store.SaveJob(ctx, *oc); err != nil {
		return record.Job{}, err
	}
	return s.Store.Job(ctx, jobID)
}

// VersionLabel names a version as people do, by its place in its scene's
// record: v1 for the first, v2 for the first edit; the id when the record
// does not hold it.
func VersionLabel(rec record.JobRecord, id string) string {
	for i, v := range rec.Jobs {
		if v.ID == id {
			return "v" + strconv.Itoa(i+1)
		}
	}
	return id
}

// LastCut is the job's newest successful composition, its record and its
// name among the record's versions (v2): the job's composed video, which a
// new composition replaces. ok is false before any composition succeeded.
func LastCut(j record.Job) (v record.SubJob, label string, ok bool) {
	for i := len(j.Compose) - 1; i >= 0; i-- {
		vs := j.Compose[i].Jobs
		for k := len(vs) - 1; k >= 0; k-- {
			if vs[k].State == api.StateSuccess {
				return vs[k], VersionLabel(j.Compose[i], vs[k].ID), true
			}
		}
	}
	return record.SubJob{}, "", false
}

// Chosen is the version of scene rec that the next composition uses: the
// one the user chose while it is a successful version of the scene, else
// the newest successful one; ok is false when the scene has none.
func Chosen(j record.Job, rec record.JobRecord) (v record.SubJob, byUser, ok bool) {
	if id, set := j.Choices[rec.Index]; set {
		for _, v := range rec.Jobs {
			if v.ID == id && v.State == api.StateSuccess {
				return v, true, true
			}
		}
	}
	for i := len(rec.Jobs) - 1; i >= 0; i-- {
		if rec.Jobs[i].State == api.StateSuccess {
			return rec.Jobs[i], false, true
		}
	}
	return record.SubJob{}, false, false
}

// ChosenIDs lists the chosen version of every scene, in scene order; it
// fails naming the scenes that have no successful version yet.
func ChosenIDs(j record.Job) ([]string, error) {
	var ids, missing []string
	for _, rec := range j.Scenes {
		v, _, ok := Chosen(j, rec)
		if !ok {
			missing = append(missing, strconv.Itoa(rec.Index+1))
			continue
		}
		ids = append(ids, v.ID)
	}
	if len(missing) > 0 {
		return nil, inputErr("scene %s %s no successful version to compose: edit %s first",
			strings.Join(missing, ", "), textutil.Word(len(missing), "has", "have"), textutil.Word(len(missing), "it", "them"))
	}
	if len(ids) == 0 {
		return nil, inputErr("job %s has no scenes yet", j.ID)
	}
	return ids, nil
}

// Choose makes version versionID the one its scene contributes to the
// next composition; it must have succeeded. The choice is kept in history.
func (s *Service) Choose(ctx context.Context, jobID, versionID string) error {
	j, err := s.Store.Job(ctx, jobID)
	if err != nil {
		return err
	}
	rec, v, ok := findVersion(j.Scenes, versionID)
	if !ok {
		return inputErr("%s is not a scene version of job %s", versionID, jobID)
	}
	if v.State != api.StateSuccess {
		return inputErr("version %s is %s: only a successful version can go into the cut", versionID, api.DescribeState(v.State))
	}
	return s.Store.ChooseVersion(ctx, jobID, rec.Index, versionID)
}

// findVersion finds a version among records.
func findVersion(recs []record.JobRecord, id string) (record.JobRecord, record.SubJob, bool) {
	for _, rec := range recs {
		for _, v := range rec.Jobs {
			if v.ID == id {
				return rec, v, true
			}
		}
	}
	return record.JobRecord{}, record.SubJob{}, false
}

// Find finds a version of a job, a scene's or a composition.
func Find(j record.Job, id string) (record.JobRecord, record.SubJob, bool) {
	if rec, v, ok := findVersion(j.Scenes, id); ok {
		return rec, v, ok
	}
	return findVersion(j.Compose, id)
}

// Edit asks the service to make scene sceneJobID (any version of the scene)
// again from prompt. The new version is recorded at once as the scene's
// newest and the job is followed until it ends; its id is returned.
func (s *Service) Edit(ctx context.Context, jobID, sceneJobID, prompt string) (string, error) {
	if errs := catalog.ValidateEdit(map[string]any{"job_id": sceneJobID, "prompt": prompt}); errs != nil {
		return "", &InputError{Err: errs}
	}
	j, err := s.Load(ctx, jobID)
	if err != nil {
		return "", err
	}
	rec, _, ok := findVersion(j.Scenes, sceneJobID)
	if !ok {
		// A version made since history last read the job.
		if j, err = s.Refresh(ctx, jobID); err != nil {
			return "", err
		}
		if rec, _, ok = findVersion(j.Scenes, sceneJobID); !ok {
			return "", inputErr("%s is not a scene job of job %s (clapper scenes %s lists them)", sceneJobID, jobID, jobID)
		}
	}
	cur := rec.Current()
	if !api.IsTerminal(cur.State) {
		return "", inputErr("scene %d is still being made (%s, version %s); edit it when it is done", rec.Index+1, api.DescribeState(cur.State), cur.ID)
	}
	id, err := s.Client.EditScene(ctx, jobID, api.EditSceneRequest{JobID: sceneJobID, Prompt: prompt})
	if err != nil {
		return "", err
	}
	v := record.SubJob{ID: id, Prompt: prompt, Duration: cur.Duration}
	if err := s.Store.AddVersion(ctx, jobID, api.RecordGenerateVideo, rec.Index, v); err != nil {
		return id, err
	}
	if s.EditCredits != nil && j.LocalID != 0 {
		if n := s.EditCredits(cur.Duration); n > 0 {
			if err := s.Store.ChargeVersion(ctx, j.LocalID, id, n); err != nil {
				return id, fmt.Errorf("version %s was made; its %d credits were not recorded: %w", id, n, err)
			}
		}
	}
	s.follow(ctx, j)
	return id, nil
}

// Compose asks the service to compose versionIDs (one per scene); with
// none, the chosen version of every scene. The composition is recorded at
// once and the job followed until it ends; its id and the versions sent
// are returned.
func (s *Service) Compose(ctx context.Context, jobID string, versionIDs []string) (string, []string, error) {
	j, err := s.Load(ctx, jobID)
	if err != nil {
		return "", nil, err
	}
	if len(versionIDs) == 0 {
		if versionIDs, err = ChosenIDs(j); err != nil {
			return "", nil, err
		}
	} else if checkPicks(j, versionIDs) != nil {
		// Versions made since history last read the job may be named.
		if j, err = s.Refresh(ctx, jobID); err != nil {
			return "", nil, err
		}
		if err := checkPicks(j, versionIDs); err != nil {
			return "", nil, err
		}
	}
	list := make([]any, len(versionIDs))
	for i, id := range versionIDs {
		list[i] = id
	}
	if errs := catalog.ValidateCompose(map[string]any{"job_ids": list}); errs != nil {
		return "", nil, &InputError{Err: errs}
	}
	if n := len(j.Compose); n > 0 {
		if cur := j.Compose[n-1].Current(); cur.ID != "" && !api.IsTerminal(cur.State) {
			return "", nil, inputErr("composition %s is still being made (%s); compose again when it is done", cur.ID, api.DescribeState(cur.State))
		}
	}
	id, err := s.Client.Compose(ctx, jobID, api.ComposeRequest{JobIDs: versionIDs})
	if err != nil {
		return "", nil, err
	}
	// The compose record: the one the service already lists, else after
	// the scenes (the sandbox's numbering; the spec does not say).
	idx := len(j.Scenes)
	if n := len(j.Compose); n > 0 {
		idx = j.Compose[n-1].Index
	}
	input, _ := json.Marshal(map[string]any{"job_ids": versionIDs})
	if err := s.Store.AddVersion(ctx, jobID, api.RecordCompose, idx, record.SubJob{ID: id, Input: string(input)}); err != nil {
		return id, versionIDs, err
	}
	s.follow(ctx, j)
	return id, versionIDs, nil
}

// checkPicks wants each id a scene version of the job, one per scene.
func checkPicks(j record.Job, ids []string) error {
	seen := map[int]string{}
	for _, id := range ids {
		rec, _, ok := findVersion(j.Scenes, id)
		if !ok {
			return inputErr("%s is not a scene version of job %s (clapper scenes %s lists them)", id, j.ID, j.ID)
		}
		if other, dup := seen[rec.Index]; dup {
			return inputErr("%s and %s are both versions of scene %d: compose one version per scene", other, id, rec.Index+1)
		}
		seen[rec.Index] = id
	}
	return nil
}

// follow has the watcher read the job soon and until its new version ends;
// without a watcher the job is read once, so history has the service's
// record of the new version.
func (s *Service) follow(ctx context.Context, j record.Job) {
	if s.Watcher == nil {
		s.Refresh(ctx, j.ID) // best effort: the version is recorded already
		return
	}
	created := j.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	s.Watcher.Watch(j.ID, api.OpGeneralOneClick, "", api.StateProcessing, created)
	s.Watcher.Wake(j.ID)
}

// ComposedInput lists the versions a composition was asked to compose, as
// its input says (empty when the input names none).
func ComposedInput(v record.SubJob) []string {
	var in struct {
		JobIDs []string `json:"job_ids"`
	}
	if json.Unmarshal([]byte(v.Input), &in) != nil {
		return nil
	}
	return in.JobIDs
}
