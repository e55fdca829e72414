// Package catalog holds every rule of the service's tables once: per
// operation, per model, per field (required, type, default, options, range,
// list length, character limit) and the cross-field rules. The form builder,
// the CLI's pre-flight check and the sandbox's request validation all call
// Validate, so they cannot disagree.
//
// Field-level rules are transcribed in tables.go, one builder per spec
// section. Cross-field rules (rules.go), with the spec line each comes from:
//
//   - reference2video: images "yes in the images form", subjects "yes in the
//     subjects form": one of the two is required.
//   - reference2video subjects: svcq2-pro takes at most 4 image or text
//     subjects and at most 2 video subjects, of which at most 1 temporary
//     (no server_id); svcq1, svcq2 and the svcq3 family take at most 7 image
//     and text subjects; svcq3-mix and svcq4-preview take none. A subject
//     has a name, at most 3 images and (svcq2-pro only) at most 1 video of 5 s.
//   - reference2video svcq2-pro: 1-7 images without videos, 1-4 with videos;
//     videos: one of at most 8 s or two of 5 s (lengths read from MP4 data URIs).
//   - Shared optional video fields: off_peak for svcq1, svcq2 and 2.0-series
//     models only when audio is false (the model's audio default counts).
//   - start-end2video: the first frame's pixel count divided by the last
//     frame's within 0.8-1.25.
//   - reference2image svcq2: aspect_ratio auto means "as the first image", so
//     it needs an image.
//   - audio-clone: prompt_text needs its prompt_audio_url (the clip alone is fine).
//   - timing2audio: from and to within [0, duration] (the default 10 when unset).
//   - mv: lip_sync does not support 540p; lip_ref_url at most 2:1 and under
//     4096 px on its longest side.
//   - premium_mv: lip_ref_urls required for sing and sing_perform; images
//     required for perform and dance.
//   - reference2video prompt: every [@name] names a subject of the request
//     (models that take subjects; svcq4-preview's references by position
//     have a syntax not shown and are not read).
//   - extend and upscale-new (tables2026.go): video_creation_id or
//     video_url is required; with both, the creation id is used.
//   - template2video: area only for exotic_princess, beast only for
//     beast_companion; the templates the notes name want a prompt, but
//     subject_3 and pubg_winner_hit.
//
// Shared input rules checked on every media value: an http(s) URL is
// accepted as given (the service fetches it); a data URI (data:, in any
// case) must declare its content type and be base64, and its bytes must be
// what it declares: an image of that format, an MP4/MOV (ISO boxes) or AVI
// (RIFF) video as declared, audio that is not an image. Images must be png,
// jpeg, jpg or webp (bmp also for lip-sync reference faces), at least
// 128x128, with an aspect ratio within 1:4..4:1, and under 10 MB decoded
// (mv lip_ref_url "at most 10 MB": 10 MB itself passes); videos and audio
// under 20 MB decoded. Reference videos (svcq2-pro videos) follow the image
// frame rule where their MP4 header states a frame size. Audio lengths
// (music videos 10-300 s) are checked where the header tells them (WAV);
// video lengths where an MP4 header does.
//
// Values: null, "" and an empty list mean unset, except that an empty list
// for a field that is no list is a type error; a text field of only spaces
// is unset (a required prompt of spaces is missing). Whole numbers may be
// written 5.0 or 1e1; Normalize sends them as 5 and 10, a single media
// string for a list as a list of one, and leaves unset values out.
//
// Choices where the spec says "not shown" or is ambiguous:
//
//   - Whether images and subjects combine: refused, so a request means one thing.
//   - svcq3-turbo's duration bound, given as both 15 and 16: 16.
//   - Image counts of the svcq3 family in reference2video ("required array"):
//     at least 1, no upper bound; template-story and trending-replicate images
//     likewise unbounded; premium_mv "6 images": 1 to 6 where required
//     (perform, dance), at most 6 otherwise.
//   - svcq3-drama sounds: count not bounded (svcq4-preview: 0-3).
//   - "svcq2 | same, any ratio or auto" and svcq2-pro "same": both take the
//     listed ratios or any W:H within 1:4..4:1.
//   - text2video svcq1 duration and resolution, and start-end2video duration
//     and resolution of the svcq1/svcq2 models: the service layer gives them
//     (below); start-end2video audio of those models stays the service's
//     default. text2video svcq1 takes movement_amplitude because the
//     service echoes it for that model.
//   - Prompt limit of the svcq3 family in img2video ("see Limits"): 5000, the
//     video limit.
//   - Fields a model does not take are refused (FieldUnwanted) naming the
//     models that do, except a flag sent as false: it asks for nothing the
//     model lacks ("svcq4-preview shows no bgm" refuses bgm true only).
//   - lip-sync: audio_url and text are both optional and may both be sent
//     (the table marks neither required; the service decides what a request
//     with neither means); speed must be positive and volume not negative.
//   - timing2audio events must not end before they start (from == to passes,
//     as the spec's bounds allow).
//   - seed: any whole number within ±(2^53-1), the largest integers every
//     JSON client reads exactly ("other value used as given": -1 included);
//     payload, prompts and text count characters (runes), not bytes.
//   - lip-sync takes payload: its table omits it but its response echoes it.
//   - A field no table of the operation names is refused (FieldUnwanted, a
//     reason the service's own error table has), which also catches typos:
//     the message suggests the nearest field (Suggest).
//   - TTS voice_setting_emotion takes the service's seven emotions (service notes).
//   - voice ids used by TTS, lip-sync and img2video need not follow the clone
//     syntax (system voices), but cannot contain spaces or control characters.
//   - Two subjects with one name are refused: [@name] would be ambiguous.
//   - Sending a result onward (onward.go): the places are every field whose
//     kind and media take the result (Targets), never a list of our own. A
//     clone's result is its voice, not its preview; the clone's own new
//     voice_id takes none (NewVoice). A subject takes a result's image or
//     voice (a new subject in the list); its videos (svcq2-pro, 5 s) are
//     not offered. A named item (start-end2video's first and last frame) is
//     a place of its own; a last frame sent to a list with no first frame
//     goes first, as a list has no gaps. A field that takes only a URL
//     (audio-clone's audio) is a place for a live result URL, never a file.
//
// Every front end accepts local file paths for media fields: InlineFiles
// (localfile.go) reads them into data URIs declared by their bytes, and
// Describe gives the rules as data (clapper models --json, the MCP server).
//
// # The service in 2026
//
// Five operations the spec does not list come from the notes' section "The
// service in 2026" (tables2026.go) and belong to the service layer, each
// field citing it (Cite): extend (1-7 s added to a video of 4 s to 1 min),
// multiframe (a start image and 2-9 key frames of 2-7 s, KindKeyFrames),
// upscale-new (1080p, 2K, 4K or 8K, a source of at most 300 s), text2audio
// (2-10 s, a float) and template2video. Choices there:
//
//   - video_url is a URL the service fetches, never a file (the notes say
//     "a video URL"); a result of this service is named by its creation id.
//   - extend with both a creation id and a URL: read as upscale-new's page
//     says ("the creation id wins"), the lenient side.
//   - Key frames: duration optional (no default is given; 5 s where a
//     length is needed), prompt optional and not bounded (none is given).
//   - template2video's template is an open choice (OpenChoice): the known
//     names are offered, any other identifier is sent as written, since
//     the official list is long and changes. Its photos: at least one.
//     aspect_ratio and the area and beast values are the official MCP
//     server's.
//   - svc1.5 is retired on the video operations: refused as such (not as
//     unknown); a catalog file that adds it brings it back.
//
// The models and fields the notes saw in use are the service layer's
// (service.json), each citing the notes and which of their sources:
// svc2.0 on img2video, start-end2video and reference2video (like svcq1,
// but 4 or 8 s, a range with Options: some of its values only; 360p,
// 720p, 1080p; 1-3 references; no audio, which the notes never give it;
// defaults 4 s and 360p, the lowest the notes give, as no source names
// one); style on text2video svcq1 only ("effective for svcq1 only": a
// field that does nothing elsewhere is not offered there); bgm for the
// svcq1, svcq2 and svc2.0 families; audio_type on the q3 family. Where one
// source says it or sources disagree, the lenient side, cited so: svcq3-pro
// img2video at 2K (one source), svcq2-pro/-turbo img2video at 540p,
// start-end2video q2 at 1-8 s, svcq3-mix 1-16 s. A number the service's
// examples send as a string (text2audio's duration and seed, audio-tts's
// voice settings) is NumericString: Validate reads "10" as 10 there, and
// Normalize sends the number.
//
// # Layers
//
// The tables above are the spec layer. The service layer (service.json,
// embedded) adds what the service notes document beyond them, in the form
// a user's catalog file takes: models (text2video svcq2, img2video
// svcq2-pro, -turbo, -pro-fast), the durations and resolutions the spec
// leaves "not shown" (text2video svcq1: 5 s at 1080p; start-end2video: 1-8
// s for svcq2 models, 5 s at 1080p for svcq1 models), audio_type, is_rec on
// start-end2video, lip-sync ranges and the pronunciation form. Choices
// there: img2video svcq2 models default audio to false, as every svcq2
// model of the spec does; text2video svcq1 keeps the spec's five aspect
// ratios where the notes list three. The user layer is catalog.json
// (LoadUserFile), checked whole on load. A model a layer adds starts from
// the model it is "like" (the operation's first spec model otherwise),
// with that model's cross-field rules; every field and model carries the
// layer it comes from (Source).
package catalog
