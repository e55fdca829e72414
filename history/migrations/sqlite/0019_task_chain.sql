-- 0019: a task sent onward from another remembers where it came from.
--
-- task was made with a result of parent: the parent's image, video, audio or
-- voice filled the child's field (images[0], video_url, subjects[].images,
-- voice_setting_voice_id). The link is written in the transaction that
-- records the request before it is POSTed, so a child never exists without
-- it. Children are found by parent, hence the index.
CREATE TABLE task_parents (
    task   INTEGER PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    parent INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    field  TEXT    NOT NULL
);
CREATE INDEX task_parents_parent ON task_parents (parent);
