// Package sandbox is a faithful local simulation of the svc service: an
// http.Handler that speaks its wire format on every path of the spec, so that
// clapper runs with no account and any other client of the service can be
// tested against it (`clapper sandbox`).
//
// Requests are validated by api/catalog, the one source of truth for the
// tables, plus what a server checks itself: the Authorization header, the
// body (JSON object, at most 20 MB), known paths and methods. Time is a Clock:
// the wall clock scaled by Config.Speed, or a FakeClock that tests move
// (then call Server.Advance, which also waits for due callbacks). The
// simulated time never runs back: a clock set back holds it still until the
// clock catches up.
//
// # Paths
//
// Every creation path of the spec, GET /ent/v2/tasks/{id}/creations (for
// every id the sandbox made: tasks, music videos, multi-scene jobs and their
// scene and compose sub-jobs), POST /ent/v2/tasks/{id}/cancel, and the
// multi-scene GET, /edit and /compose paths. Beyond the spec's tables, as
// the service notes document them: the creation paths of 2026 (extend,
// multiframe, upscale-new, text2audio, template2video), GET
// /ent/v2/credits, the stored subjects
// (POST and GET /ent/v2/subjects, PUT /ent/v2/subjects/{id}) and the upload
// flow (POST /tools/v2/files/uploads, PUT of the bytes to the put_url,
// PUT /tools/v2/files/uploads/{id}/finish). Outside the service's namespace:
// GET /_sandbox/tasks lists every unit as {id, operation, kind, parent,
// state, err_code, credits, created_at, updated_at, queued_at, started_at,
// ended_at} (the last three when reached, so clients can measure how late
// they learned of each change); GET|HEAD
// /_sandbox/files/{id}/{name}?exp=&sig= serves result files. Neither needs a
// token and fault injection never touches them.
//
// # Leniency
//
// The sandbox is as lenient as the service, which ignores what a request
// does not use: clients written for it send such fields every day, and
// clapper's own client is the strict one. Ignored, at any value, on every
// creation path and on /edit and /compose:
//   - A field no table of the operation lists: character_id and language
//     in lip-sync, payload in timing2audio, model where the operation has
//     none, anything unknown.
//   - An optional setting the spec gives only to other models of the
//     operation: movement_amplitude outside svcq1 (the svcq1 family in
//     img2video), bgm and off_peak where the model shows none (svcq4-preview,
//     the svcq3 family in text2video and img2video; off_peak also
//     svcq3-drama, -mix, -ad), auto_subjects for svcq3-mix and
//     svcq4-preview, voice_id in img2video outside the svcq1 family, style
//     in text2video outside svcq1 ("effective for svcq1 only"). Such a
//     setting has no effect: off_peak on svcq4-preview neither waits for the
//     window nor halves the price.
//   - In a subject, id beside a name. A subject with no name takes its id,
//     the older key, as the name.
//   - video_url beside video_creation_id (extend, upscale-new): "the
//     creation id wins when both are sent".
//   - template2video's area and beast sent for another template than the
//     one taking each (the official MCP server sends both defaults).
//   - The content type an image data URI declares, when its bytes are
//     another accepted image format: a PNG sent as data:image/jpeg is read
//     as the PNG it is (catalog.Relabel), named as images[0].content_type.
//
// Ignored fields are neither checked, used nor echoed. The answer names
// them in the header X-Sandbox-Ignored-Fields (comma-separated, sorted; a
// subject's id as subjects[i].id), on refusals too, so a developer sees
// what the service would not have used.
//
// Numbers sent as JSON strings are read as the numbers where the service's
// own examples send them so (catalog.Field.NumericString: text2audio's
// duration and seed, audio-tts's voice_setting_speed, _volume and _pitch),
// then checked as numbers and echoed as numbers; the answer names them in
// X-Sandbox-Coerced-Fields (comma-separated, sorted), on refusals too.
// Elsewhere a string for a number is refused as the wrong type.
//
// Still refused: broken values, counts and lengths of the fields the model
// takes, a missing or unknown model, and the inputs the spec gives only to
// other models, since a task made without them would not be the one asked
// for: videos outside svcq2-pro, subjects for svcq3-mix and svcq4-preview,
// sounds outside svcq3-drama and svcq4-preview (FieldUnwanted); and off_peak
// with audio for the svcq1 and svcq2 families (FieldInvalid).
//
// # Choices where the spec says "not shown" (or leaves room)
//
// Requests:
//   - Authorization must be "Token <key>" with any non-empty key; the scheme
//     in any case. Otherwise 401 Unauthorized naming "Authorization".
//   - Content-Type is not checked (application/json, Application/json and
//     none all work); a trailing slash on any path is ignored.
//   - A body over 20 MiB answers 400 BadRequest naming "body" (the service's
//     error table has no 413); so do empty bodies, malformed JSON, anything
//     after the object and non-object bodies.
//   - Unknown path: 404 NotFound naming "path". Wrong method: 405 with
//     reason MethodNotAllowed (not in the service's table) naming "method"
//     and an Allow header. Unknown id: 404 TaskNotFound naming "id".
//   - Field errors come from catalog.Validate, after the fields the service
//     ignores are dropped (see Leniency), with its reason (FieldInvalid,
//     FieldLacking, ...); the message is the service's template ("invalid
//     field: duration", "field is missing or empty: prompt") followed by
//     the catalog's explanation in parentheses.
//   - Every response carries x-md-trace-id, a random 32-hex id, repeated in
//     metadata.trace_id of error bodies. Successful bodies never carry code.
//   - Media inputs: URLs are accepted as given and never fetched; data URIs
//     are decoded and checked by the catalog. The creation echo repeats the
//     request as sent (data URIs included) with the defaults applied; the
//     state keeps data URIs cut to their header.
//   - All tokens share one account: every task is visible to every token,
//     and the concurrency limit counts them together. Callbacks are signed
//     with the token that created the task (kept in the state only then).
//
// Identifiers and times:
//   - Ids of tasks, jobs, sub-jobs and creation items are 18-digit decimal
//     strings derived from the seed and a sequence number.
//   - created_at and updated_at are UTC with nine fractional digits.
//   - The seed actually used is echoed by the seeded operations (the video
//     operations, reference2image, timing2audio): the one sent, or a random
//     one in [1, 2^31-1] when 0 or none was sent.
//
// States and timing (durations at speed 1, divided by Config.Speed):
//   - Asynchronous tasks: created for 0.5-2 s, then queueing for at least
//     1-4 s, then processing, then success or failed. Processing lasts:
//     videos 20 s + 6 s per second of video, x0.5 (360p) to x4 (4K), x0.6
//     for -turbo/-fast models and x1.3 for -pro and svcq4 (a 5 s 720p video
//     about a minute, 16 s 1080p about three); images 15 s (x1.5 2K, x2.5
//     4K); timing2audio 5 s + its duration; lip-sync 60 s; template-story
//     90 s; trending-replicate 60 s (fast) to 180 s (high) at 720p, scaled
//     by resolution like videos; mv 120 s plus 1.5 s per second of song;
//     premium_mv 180 s plus 2 s per second; extend and multiframe like
//     videos of the seconds they make (the extension; the key frames'
//     sum); upscale-new 30 s x0.7 (540p) to x7 (8K) by its target;
//     template2video 60 s; text2audio 5 s + its duration. Each is jittered
//     x0.8-1.3.
//   - At most Config.MaxConcurrent (default 5) tasks process at once. The
//     others wait in queueing and start strictly in submission order: a task
//     not yet ready holds back every later one (off-peak tasks excepted,
//     which wait for their own slot in the window).
//   - Config.FailRate of the tasks fail part-way through processing with an
//     err_code from the service's reasons: CreationPolicyViolation,
//     InternalServiceFailure, TaskPromptPolicyViolation (when prompted), and
//     by operation ImageCheckFaceFailed (lip-sync, lip-synced music videos),
//     ImageObjectsUndetected (template-story, trending-replicate),
//     ImageCheckBodyJointsFailed (premium_mv dance), AuditSubmitIllegal
//     (audio-clone). Failed and cancelled tasks report credits 0: credits
//     are returned.
//   - progress (trending-replicate only) is 0 until processing, then the
//     share of processing time elapsed (at most 99), 100 on success; a failed
//     task keeps where it stopped.
//   - audio-clone and audio-tts answer settled, success or failed, in the
//     creation call; queueing never shows since nothing waits.
//   - Music videos without a readable song length (URLs, undecodable data
//     URIs) are taken as 60 s long; a WAV data URI gives its length, other
//     data URIs are estimated at 128 kbit/s; the length is clamped to 10-300 s.
//
// Off-peak and cancel:
//   - An off-peak task waits in queueing until a slot in its 48 h window (2%
//     to 75% into it); one in ten gets none and is cancelled automatically
//     when the window closes: state failed, err_code Canceled, credits
//     returned. The window is scaled by Speed.
//   - POST /ent/v2/tasks/{id}/cancel (body ignored) cancels a task that is
//     created or queueing, off-peak or not, and answers {}; it then reads
//     failed with err_code UserCancelled and credits 0. Any other state
//     answers 400 BadRequest "task state is <state>, can not cancel";
//     multi-scene jobs and their sub-jobs cannot be cancelled (400).
//
// Credits (the service publishes no prices; this is the sandbox's table):
//   - Videos: per second of 720p video svcq1/svcq1-classic 5, svcq2/-turbo 4,
//     svcq2-pro 6, svcq2-pro-fast 5, svcq3/-turbo/-pro-fast 5, svcq3-pro 8,
//     svcq3-drama/-mix/-ad 7, svcq4-preview 10, svc2.0 4 (any other model
//     5); x0.5 360p, x0.75 540p, x1.5 1080p, x2 2K, x3 4K; off-peak half
//     (rounded up); is_rec +10.
//   - reference2image per image: svcq1 6, svcq2 4; x1.5 2K, x2.5 4K.
//   - audio-tts 1 per 100 characters (at least 1); audio-clone 50 plus the
//     preview text priced as speech; timing2audio 2 per second.
//   - lip-sync 30; template-story 40; trending-replicate fast 20, standard
//     30, plus 40, medium 50, high 60, times the video resolution factor.
//   - mv 3 per second of song (high quality 5) times the resolution factor,
//     lip_sync +4 per second unless the song exceeds 3 minutes; premium_mv 8
//     per second times the resolution factor.
//   - general_one_click 4 per second; each scene edit 4 per second of the
//     scene; composing is free.
//   - The operations of 2026, as the notes suggest (like img2video of the
//     same length and resolution; upscale by its target): extend the
//     model's video rate per second added, multiframe per second of its
//     key frames (one without a duration counts 5 s), template2video 5 s
//     at the default rate (25); upscale-new 1080p 10, 2K 20, 4K 30, 8K 50;
//     text2audio 2 per second.
//   - Credits are whole numbers, rounded up, echoed at creation (also by
//     audio-clone) and in results.
//
// Callbacks:
//   - POSTed to callback_url with the task-result body at processing (once)
//     and at success or failed (until a 2xx answer, three deliveries in all:
//     at once, 5 s and 35 s later on the clock, not scaled), signed with
//     api.SignCallback. Only loopback targets (localhost, 127.0.0.0/8, ::1)
//     are called; others are accepted, echoed, logged and never called.
//   - A bare-host callback URL is signed with path "/", the path sent.
//   - A multi-scene job's callback_url reports the job's own state changes
//     (it goes back to processing during an edit or composition); an edit's
//     or compose's callback_url reports that sub-job.
//   - Undelivered callbacks survive in the state file; each attempt is
//     recorded before it is sent, so processes sharing the file never send
//     more than three.
//
// Account, uploads and subjects:
//   - GET /ent/v2/credits answers the documented remaining_credits form: one
//     "general" line with the account's 100000 credits less what tasks kept,
//     the concurrency limit, the tasks processing and those waiting
//     (created or queueing); show_detail=true adds the account's package.
//   - Opening an upload takes {"scene": "vidu"} or no body at all (the
//     only scene); another scene is refused naming scene.
//   - Uploads: the put_url is /_sandbox/uploads/{id}, signed, valid one
//     hour, needing no token (it stands for object storage, which judges
//     nothing but size: under 10 MB); it answers an etag (quoted MD5).
//     finish checks the etag (quotes optional) and the image (png, jpeg or
//     webp, 128x128 at least, 1:4 to 4:1), answering ImageFormatInvalid.
//     The URI is accepted for 7 days; the state keeps the bytes' size,
//     type and SHA-256, not the bytes.
//   - An ssupload: URI in a creation whose id this sandbox issued (sbu...)
//     must be finished and unexpired, else 400 ImageDownloadFailure naming
//     the field. Ids issued elsewhere are accepted as given, as URLs are:
//     the sandbox cannot ask the service about them. Likewise a subject's
//     server_id: an unknown sbs... id is refused (FieldInvalid, subjects),
//     any other is accepted.
//   - Stored subjects are checked by catalog.SubjectSpec; data URI images
//     are kept as uploads of their own and answered as ssupload: URIs.
//     Creating one costs 0 credits (no public price). Two system subjects
//     answer ownership=system. subject_ids may be repeated or comma-
//     separated; count is 1-100 (else 400 PageSizeOutOfRange); the page
//     token is the offset of the next page. There is no delete.
//
// Voices:
//   - System voices are catalog.SystemVoices, the ids public clients send
//     (professional_host, female-shaonv, English_Graceful_Lady, ...). They
//     never expire and cannot be cloned over.
//   - audio-clone voice_id syntax is the catalog's: 8-256 characters, a
//     letter first, letters, digits, - and _, not ending in - or _. A
//     duplicate of a cloned or system voice answers 409 Conflict naming
//     voice_id. demo_audio is a speech WAV of text when text was sent, else "".
//   - A cloned voice is deleted 168 h (not scaled) after its cloning unless
//     a successful audio-tts used it before then; a voice used in time is
//     kept for good and no longer counts down (each use does not restart a
//     clock). Previews and failed syntheses do not count. A deleted voice's
//     id is free again, and a synthesis with it fails like any unknown
//     voice, so a use after the 168 h saves nothing.
//   - audio-tts with an unknown or deleted voice is accepted and fails at
//     once: state failed, err_code FieldInvalid, no file_url, credits 0.
//
// Multi-scene jobs:
//   - The duration is split into scenes of at most 10 s (near-equal whole
//     seconds); scene records have index 0..n-1, the compose record index n.
//     A scene's prompt is "Scene i: <prompt>"; lyric_text is empty;
//     signed_images holds the scene's key frame once it succeeded.
//   - Scenes generate side by side, 30 s + 5 s per second, outside the task
//     limit (jobs have no queueing state); the first composition (10 s + 0.2 s
//     per second) starts when all are settled and fails if one failed.
//   - The job is created until a sub-job starts, processing while any runs,
//     then the state (and err_code, err_msg) of its newest composition.
//   - /edit takes a job_id of any version of a scene and adds a version to
//     that scene's history; refused with 400 OperationInProcess while the
//     scene's newest version runs, 400 FieldInvalid for a job_id that is not
//     a scene of the job. /compose takes successful scene versions, at most
//     one per scene (scenes not named use their newest successful version);
//     refused while a composition runs (OperationInProcess) or for foreign,
//     failed or duplicate scenes (FieldInvalid).
//   - signed_url (job and sub-jobs) is valid 170 s; through
//     /tasks/{id}/creations the job's newest successful composition is its
//     creation, with the usual 24 h URL.
//   - creator_id is "sandbox"; input and output are JSON texts.
//
// Videos made from videos (extend, upscale-new):
//   - The source is read from video_creation_id, else from video_url when
//     it is a result URL of this sandbox: a creation not finished, or not
//     a video, is refused (FieldInvalid naming the field). Any other id or
//     URL is taken on trust as a 5 s 720p 16:9 video: the sandbox fetches
//     nothing.
//   - extend takes a source of 4 s to 1 min; upscale-new one of at most
//     300 s, to a resolution above the source's (FieldInvalid naming
//     upscale_resolution, with the targets above it). Frame rates are not
//     known, so "under 60 fps" is not checked.
//   - Results keep the source's shape. Their length adds up: an extended
//     video is its source and the extension, an upscaled one its
//     source's length, a multiframe video the sum of its key frames, a
//     template video 5 s; GET /_sandbox/tasks lists it as seconds. The
//     file served is the embedded sample of that shape, as for every video.
//
// Result files:
//   - Generated on every GET from the task's parameters, never stored:
//     images are PNGs at the aspect ratio and resolution asked (auto: the
//     first input image's ratio when it is a data URI, else 16:9), covers
//     JPEGs, timing2audio a WAV with each event sounding within [from, to),
//     text2audio a WAV of its prompt as long as its duration,
//     speech a WAV of voiced syllables (a voice always sounds the same), and
//     videos the embedded MP4 of the nearest aspect ratio. Video operations
//     also get watermarked_url (the same video). Every creation item carries
//     cover_url, "" for audio results, which have no cover.
//   - URLs are signed (HMAC-SHA256 with a per-state secret) with an expiry
//     rounded up to the second: 24 h, 1 h for trending-replicate, 170 s for
//     signed_url, on the clock and not scaled. Expired or forged URLs answer
//     403 Forbidden; every read of a task signs afresh.
//
// Persistence, determinism and faults:
//   - With Config.StatePath the state is a JSON snapshot (mode 0600) and a
//     journal beside it (FILE.journal): each change appends, and syncs, one
//     line with the units it touched, under an exclusive flock on FILE.lock,
//     so a change costs the same with 100 tasks held as with 20,000; when
//     the journal outgrows the snapshot, a new snapshot (written atomically)
//     takes it in. Another process's changes are read from the journal
//     before each request, so the TUI and CLI commands share tasks. A task's
//     plan is absolute in time, so it goes on progressing while no process
//     runs. A line cut short by a crash is dropped; a file that cannot be
//     read is moved to FILE.corrupt-<unix time> and the sandbox starts
//     afresh.
//   - At most 100,000 units are remembered: past that the tasks that
//     finished first are forgotten (reading one answers TaskNotFound), so a
//     long load test grows neither memory nor the state file without end;
//     tasks in flight are never forgotten. A creation costs about the same
//     with 100,000 tasks in flight as with 100.
//   - Every random choice of a unit comes from (seed, sequence number): the
//     same seed and clock give the same ids, seeds, plans and outcomes. A
//     state file keeps the seed it was made with; Seed 0 picks one at random.
//   - Config.Rate429 and Rate5xx answer that fraction of service requests
//     429 TooManyRequests (half with Retry-After: 1-5 s) or 500
//     InternalServiceFailure without acting on them; SlowRate delays that
//     fraction by SlowDelay first (on a FakeClock, by moving it).
//   - Nothing is printed: diagnostics go to Config.Logf, if set.
package sandbox
