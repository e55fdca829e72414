package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/record"
	"clapper/scenes"
)

type scenesIn struct {
	JobID string `json:"job_id,omitempty" jsonschema:"a general_one_click task id; empty lists the jobs"`
}

type editIn struct {
	JobID      string `json:"job_id" jsonschema:"the general_one_click task id"`
	SceneJobID string `json:"scene_job_id" jsonschema:"any version id of the scene (get_scenes)"`
	Prompt     string `json:"prompt" jsonschema:"the scene's new prompt"`
}

type composeIn struct {
	JobID      string   `json:"job_id" jsonschema:"the general_one_click task id"`
	VersionIDs []string `json:"version_ids,omitempty" jsonschema:"one version id per scene, in order; empty: the chosen ones"`
}

type jobSummaryOut struct {
	JobID     string `json:"job_id"`
	State     string `json:"state"`
	Prompt    string `json:"prompt,omitempty"`
	Scenes    int    `json:"scenes"`
	Versions  int    `json:"versions"`
	Busy      int    `json:"being_made"`
	CreatedAt string `json:"created_at"`
}

type versionOut struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Prompt  string `json:"prompt,omitempty"`
	ErrCode string `json:"err_code,omitempty"`
	Chosen  bool   `json:"chosen,omitempty"`
	File    string `json:"file,omitempty"`
}

type sceneOut struct {
	Scene    int          `json:"scene"`
	Versions []versionOut `json:"versions"`
}

type jobOut struct {
	JobID        string          `json:"job_id"`
	State        string          `json:"state"`
	ErrCode      string          `json:"err_code,omitempty"`
	Scenes       []sceneOut      `json:"scenes"`
	Compositions []versionOut    `json:"compositions,omitempty"`
	Jobs         []jobSummaryOut `json:"jobs,omitempty"`
}

type startedOut struct {
	JobID     string   `json:"job_id"`
	VersionID string   `json:"version_id"`
	Composed  []string `json:"composed_versions,omitempty"`
	Follow    string   `json:"follow"`
}

func (s *Server) addSceneTools() {
	add(s, SetScenes, &sdk.Tool{Name: "get_scenes", Title: "A multi-scene job's scenes", Annotations: readsService,
		Description: "A multi-scene job's scenes, each with its versions and the one chosen to compose; without job_id, the jobs in history."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in scenesIn) (*sdk.CallToolResult, jobOut, error) {
			sv := s.studio.Scenes()
			if in.JobID == "" {
				out, err := s.jobList(ctx)
				return nil, out, err
			}
			j, err := sv.Refresh(ctx, in.JobID)
			if err != nil {
				// Offline or gone: history's copy is still worth showing.
				if j, err = sv.Load(ctx, in.JobID); err != nil {
					return nil, jobOut{}, sceneError(err)
				}
			}
			return nil, describeJob(j), nil
		})
	add(s, SetScenes, &sdk.Tool{Name: "edit_scene", Title: "Make a scene again", Annotations: spends,
		Description: "Makes a new version of one scene of a multi-scene job from a new prompt."},
		func(ctx context.Context, req *sdk.CallToolRequest, in editIn) (*sdk.CallToolResult, startedOut, error) {
			price := s.studio.SceneEditPrice(ctx, in.JobID, in.SceneJobID)
			if ask, err := s.confirm(ctx, req, "a new version of a scene of job "+api.CleanText(in.JobID), price); ask != nil || err != nil {
				return ask, startedOut{}, err
			}
			s.sendMu.Lock()
			defer s.sendMu.Unlock()
			if err := s.studio.CheckAgentCap(ctx, price); err != nil {
				return nil, startedOut{}, err
			}
			id, err := s.studio.Scenes().Edit(ctx, in.JobID, in.SceneJobID, in.Prompt)
			if err != nil {
				return nil, startedOut{}, sceneError(err)
			}
			return nil, startedOut{JobID: in.JobID, VersionID: api.CleanText(id), Follow: "get_scenes with job_id " + in.JobID}, nil
		})
	add(s, SetScenes, &sdk.Tool{Name: "compose_scenes", Title: "Compose the scenes", Annotations: spends,
		Description: "Composes a multi-scene job's video from one version per scene; then download_results on the job."},
		func(ctx context.Context, req *sdk.CallToolRequest, in composeIn) (*sdk.CallToolResult, startedOut, error) {
			price := s.studio.ScenePrice(false, 0)
			if ask, err := s.confirm(ctx, req, "a composition of job "+api.CleanText(in.JobID), price); ask != nil || err != nil {
				return ask, startedOut{}, err
			}
			s.sendMu.Lock()
			defer s.sendMu.Unlock()
			if err := s.studio.CheckAgentCap(ctx, price); err != nil {
				return nil, startedOut{}, err
			}
			id, used, err := s.studio.Scenes().Compose(ctx, in.JobID, in.VersionIDs)
			if err != nil {
				return nil, startedOut{}, sceneError(err)
			}
			return nil, startedOut{JobID: in.JobID, VersionID: api.CleanText(id), Composed: used, Follow: "get_scenes with job_id " + in.JobID}, nil
		})
}

func (s *Server) jobList(ctx context.Context) (jobOut, error) {
	jobs, err := s.studio.Record().JobSummaries(ctx, 50)
	if err != nil {
		return jobOut{}, err
	}
	out := jobOut{Scenes: []sceneOut{}, Jobs: []jobSummaryOut{}}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, jobSummaryOut{JobID: api.CleanText(j.JobID), State: j.State, Prompt: api.CleanText(j.Prompt),
			Scenes: j.Scenes, Versions: j.Versions, Busy: j.Busy, CreatedAt: j.CreatedAt.UTC().Format(time.RFC3339)})
	}
	return out, nil
}

func describeJob(j record.Job) jobOut {
	out := jobOut{JobID: api.CleanText(j.ID), State: j.State, ErrCode: api.CleanText(j.ErrCode), Scenes: []sceneOut{}}
	for _, rec := range j.Scenes {
		chosen, _, _ := scenes.Chosen(j, rec)
		so := sceneOut{Scene: rec.Index + 1}
		for _, v := range rec.Jobs {
			so.Versions = append(so.Versions, versionView(v, v.ID == chosen.ID))
		}
		out.Scenes = append(out.Scenes, so)
	}
	for _, rec := range j.Compose {
		for _, v := range rec.Jobs {
			out.Compositions = append(out.Compositions, versionView(v, false))
		}
	}
	return out
}

func versionView(v record.SubJob, chosen bool) versionOut {
	vo := versionOut{ID: api.CleanText(v.ID), State: v.State, Prompt: api.CleanText(v.Prompt), ErrCode: api.CleanText(v.ErrCode), Chosen: chosen}
	if v.Download != nil {
		vo.File = v.Download.Path
	}
	return vo
}

// sceneError keeps the editor's words for what the agent must change.
func sceneError(err error) error {
	var ie *scenes.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("not sent: %s", api.CleanText(ie.Error()))
	}
	if e, ok := api.AsError(err); errors.Is(err, record.ErrNotFound) || (ok && e.Status == 404) {
		return fmt.Errorf("job_id: not a multi-scene job of this history (get_scenes without job_id lists them)")
	}
	return errors.New(api.CleanText(err.Error()))
}
