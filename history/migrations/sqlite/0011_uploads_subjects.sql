-- 0011: image uploads and stored subjects.
--
-- uploads: an image sent through the service's upload flow, by the SHA-256
-- of its bytes, so the same bytes are not uploaded twice while the URI is
-- valid. subjects: the stored subjects this backend created or read, so a
-- reference2video server_id is checked without asking the service.
CREATE TABLE uploads (
	sha256       TEXT PRIMARY KEY,
	uri          TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL
);

CREATE TABLE subjects (
	subject_id  TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	images      TEXT NOT NULL DEFAULT '[]',
	videos      TEXT NOT NULL DEFAULT '[]',
	voice_id    TEXT NOT NULL DEFAULT '',
	style       TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX subjects_name ON subjects (name);
