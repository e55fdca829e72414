package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

// Stored subjects (service notes): created at once, listed, updated; never
// deleted. A subject's id is what reference2video calls server_id.
const (
	subjectIDPrefix = "sbs"
	subjectSalt     = 0xd2
	// subjectCredits: no public price; creating a subject is free here.
	subjectCredits = 0
	subjectsPage   = 20
	subjectsMax    = 100
)

// subject is a stored subject in the service's wire form, the client's own.
type subject = api.StoredSubject

// systemSubjects are the service's own subjects (ownership=system).
var systemSubjects = []subject{
	{ID: "sys-subject-host", Name: "host", Images: []string{}, Videos: []string{}, VoiceID: "professional_host", Style: "studio", Description: "a news presenter at a desk"},
	{ID: "sys-subject-cat", Name: "cat", Images: []string{}, Videos: []string{}, Style: "realistic", Description: "a ginger house cat"},
}

func (st *state) subject(id string) *subject {
	for _, sb := range st.Subjects {
		if sb.ID == id {
			return sb
		}
	}
	for i := range systemSubjects {
		if systemSubjects[i].ID == id {
			return &systemSubjects[i]
		}
	}
	return nil
}

// readSubjectBody reads and checks a subject body; fields the table does
// not list are ignored and named, as on creation paths.
func readSubjectBody(rp *reply, r *http.Request, update bool) (map[string]any, *api.Error) {
	spec := catalog.SubjectSpec(update)
	body, e := readLenient(rp, r, func(map[string]any) *catalog.Spec { return spec })
	if e != nil {
		return nil, e
	}
	if errs := spec.Validate(body); errs != nil {
		return nil, fieldErrors(errs)
	}
	return body, nil
}

// storeImages keeps a subject's images as URIs: a data URI becomes an
// upload of its own, so the state keeps no image bytes and the subject's
// images are usable wherever an image URL is.
func (st *state) storeImages(list []string, now time.Time) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if !catalog.IsDataURI(s) {
			out = append(out, s)
			continue
		}
		d, _ := catalog.ParseDataURI(s) // checked by the catalog already
		sum := sha256.Sum256(d.Data)
		st.AuxSeq++
		u := &upload{ID: uploadIDPrefix + makeID(st.Seed, st.AuxSeq, uploadSalt), CreatedAt: now, PutBy: now,
			ContentType: d.ContentType, Size: len(d.Data), SHA256: hex.EncodeToString(sum[:]), ETag: "stored",
			Finished: true, ExpiresAt: now.Add(100 * 365 * 24 * time.Hour)}
		st.Uploads[u.ID] = u
		out = append(out, catalog.UploadURI(u.ID))
	}
	return out
}

// createSubject answers POST /ent/v2/subjects.
func (s *Server) createSubject(rp *reply, r *http.Request) {
	body, e := readSubjectBody(rp, r, false)
	if e != nil {
		rp.fail(e)
		return
	}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		if e := st.checkUploads(body, now); e != nil {
			return nil, e
		}
		st.AuxSeq++
		sb := &subject{ID: subjectIDPrefix + makeID(st.Seed, st.AuxSeq, subjectSalt), Name: pStr(body, "name"),
			Videos: orEmpty(pStrings(body, "videos")), VoiceID: pStr(body, "voice_id"), Style: pStr(body, "style"),
			Description: pStr(body, "description"), Credits: subjectCredits}
		sb.Images = st.storeImages(pStrings(body, "images"), now)
		st.Subjects = append(st.Subjects, sb)
		st.dirty = true
		return sb, nil
	})
}

// updateSubject answers PUT /ent/v2/subjects/{id}: what the body gives
// replaces what the subject had.
func (s *Server) updateSubject(rp *reply, r *http.Request, id string) {
	body, e := readSubjectBody(rp, r, true)
	if e != nil {
		rp.fail(e)
		return
	}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		sb := st.subject(id)
		if sb == nil || strings.HasPrefix(sb.ID, "sys-") {
			return nil, apiError(api.ReasonNotFound, "no stored subject of this account: "+id, "id")
		}
		if e := st.checkUploads(body, now); e != nil {
			return nil, e
		}
		set := func(k string, dst *string) {
			if _, ok := body[k].(string); ok {
				*dst = pStr(body, k)
			}
		}
		set("name", &sb.Name)
		set("voice_id", &sb.VoiceID)
		set("style", &sb.Style)
		set("description", &sb.Description)
		if _, ok := body["images"]; ok {
			sb.Images = st.storeImages(pStrings(body, "images"), now)
		}
		if _, ok := body["videos"]; ok {
			sb.Videos = orEmpty(pStrings(body, "videos"))
		}
		st.dirty = true
		return sb, nil
	})
}

type subjectPage struct {
	Subjects      []*subject `json:"subjects"`
	NextPageToken string     `json:"next_page_token"`
	Count         int        `json:"count"`
}

// listSubjects answers GET /ent/v2/subjects. subject_ids may be repeated
// or comma-separated; the page token is the offset of the next page.
func (s *Server) listSubjects(rp *reply, r *http.Request) {
	q := r.URL.Query()
	own := q.Get("ownership")
	if own == "" {
		own = "private"
	}
	if own != "private" && own != "system" {
		rp.fail(apiError(api.ReasonFieldInvalid, "invalid field: ownership (private or system)", "ownership"))
		return
	}
	count := subjectsPage
	if c := q.Get("count"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 || n > subjectsMax {
			rp.fail(apiError(api.ReasonPageSizeOutOfRange, fmt.Sprintf("page size out of range: count (1 to %d)", subjectsMax), "count"))
			return
		}
		count = n
	}
	offset := 0
	if tok := q.Get("next_page_token"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			rp.fail(apiError(api.ReasonFieldInvalid, "invalid field: next_page_token (give the token a page answered)", "next_page_token"))
			return
		}
		offset = n
	}
	var ids []string
	for _, v := range q["subject_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	s.answer(rp, func(st *state, now time.Time) (any, *api.Error) {
		var all []*subject
		switch {
		case ids != nil:
			for _, id := range ids {
				if sb := st.subject(id); sb != nil && !slices.Contains(all, sb) {
					all = append(all, sb)
				}
			}
		case own == "system":
			for i := range systemSubjects {
				all = append(all, &systemSubjects[i])
			}
		default:
			all = st.Subjects
		}
		page := subjectPage{Subjects: []*subject{}}
		if offset < len(all) {
			end := min(offset+count, len(all))
			page.Subjects = append(page.Subjects, all[offset:end]...)
			if end < len(all) {
				page.NextPageToken = strconv.Itoa(end)
			}
		}
		page.Count = len(page.Subjects)
		return page, nil
	})
}

// checkServerIDs refuses a reference2video subject naming a stored subject
// this sandbox issued and does not know. Ids issued elsewhere are accepted
// as given: the sandbox cannot ask the service about them.
func (st *state) checkServerIDs(params map[string]any) *api.Error {
	items, _ := params["subjects"].([]any)
	for i, it := range items {
		obj, _ := it.(map[string]any)
		id, _ := obj["server_id"].(string)
		if strings.HasPrefix(id, subjectIDPrefix) && st.subject(id) == nil {
			return apiError(api.ReasonFieldInvalid, fmt.Sprintf("invalid field: subjects (subjects[%d].server_id: no stored subject %s)", i, id), "subjects")
		}
	}
	return nil
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
