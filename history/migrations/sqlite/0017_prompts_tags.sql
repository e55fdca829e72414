-- 0017: prompt memory, and tags and a note on tasks.
--
-- prompts holds each distinct prompt (or speech text) once per operation,
-- with when it was last sent: the New page's prompt search (ctrl+p) walks
-- it newest first instead of scanning every task. A trigger keeps it, so a
-- request recorded by any front end (TUI, CLI, MCP, a batch) is remembered.
-- folded is the text in lower case for the fuzzy match (GLOB, which unlike
-- LIKE needs no case folding per row). chars has a bit for each of a-z and
-- 0-9 that folded holds (a is bit 0, 0 is bit 26): a search first keeps the
-- rows holding every such character of the pattern, an integer test far
-- cheaper than a GLOB call, then matches the pattern. The two walks'
-- indexes hold both, so no table row is read but for a match.
CREATE TABLE prompts (
    id        INTEGER PRIMARY KEY,
    operation TEXT    NOT NULL,
    text      TEXT    NOT NULL,
    folded    TEXT    NOT NULL,
    chars     INTEGER NOT NULL,
    used_at   INTEGER NOT NULL,
    UNIQUE (operation, text)
);
CREATE INDEX prompts_by_operation ON prompts (operation, used_at, chars, folded);
CREATE INDEX prompts_by_use ON prompts (used_at, chars, folded);
CREATE INDEX prompts_by_text ON prompts (text);

-- A star belongs to the prompt's text, whatever operation used it.
CREATE TABLE prompt_stars (
    text       TEXT PRIMARY KEY,
    starred_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The text a request was typed with: its prompt, else its text (speech,
-- lip-sync); a request that is no JSON object or has neither is skipped.
CREATE VIEW task_prompt_texts AS
SELECT t.id AS task, t.operation AS operation, t.created_at AS used_at,
       trim(CASE
           WHEN json_type(t.request, '$.prompt') = 'text' AND trim(json_extract(t.request, '$.prompt')) != ''
               THEN json_extract(t.request, '$.prompt')
           WHEN json_type(t.request, '$.text') = 'text' THEN json_extract(t.request, '$.text')
           ELSE '' END) AS text
FROM tasks t WHERE json_valid(t.request);

CREATE VIEW task_prompt_rows AS
SELECT task, operation, used_at, text, folded,
           ((instr(folded, 'a') > 0) << 0) | ((instr(folded, 'b') > 0) << 1) | ((instr(folded, 'c') > 0) << 2) | ((instr(folded, 'd') > 0) << 3) |
           ((instr(folded, 'e') > 0) << 4) | ((instr(folded, 'f') > 0) << 5) | ((instr(folded, 'g') > 0) << 6) | ((instr(folded, 'h') > 0) << 7) |
           ((instr(folded, 'i') > 0) << 8) | ((instr(folded, 'j') > 0) << 9) | ((instr(folded, 'k') > 0) << 10) | ((instr(folded, 'l') > 0) << 11) |
           ((instr(folded, 'm') > 0) << 12) | ((instr(folded, 'n') > 0) << 13) | ((instr(folded, 'o') > 0) << 14) | ((instr(folded, 'p') > 0) << 15) |
           ((instr(folded, 'q') > 0) << 16) | ((instr(folded, 'r') > 0) << 17) | ((instr(folded, 's') > 0) << 18) | ((instr(folded, 't') > 0) << 19) |
           ((instr(folded, 'u') > 0) << 20) | ((instr(folded, 'v') > 0) << 21) | ((instr(folded, 'w') > 0) << 22) | ((instr(folded, 'x') > 0) << 23) |
           ((instr(folded, 'y') > 0) << 24) | ((instr(folded, 'z') > 0) << 25) | ((instr(folded, '0') > 0) << 26) | ((instr(folded, '1') > 0) << 27) |
           ((instr(folded, '2') > 0) << 28) | ((instr(folded, '3') > 0) << 29) | ((instr(folded, '4') > 0) << 30) | ((instr(folded, '5') > 0) << 31) |
           ((instr(folded, '6') > 0) << 32) | ((instr(folded, '7') > 0) << 33) | ((instr(folded, '8') > 0) << 34) | ((instr(folded, '9') > 0) << 35) AS chars
FROM (SELECT p.*, lower(p.text) AS folded FROM task_prompt_texts p WHERE p.text != '');

CREATE TRIGGER prompts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO prompts (operation, text, folded, chars, used_at)
        SELECT p.operation, p.text, p.folded, p.chars, p.used_at FROM task_prompt_rows p
        WHERE p.task = new.id
    ON CONFLICT (operation, text) DO UPDATE SET used_at = max(used_at, excluded.used_at);
END;

INSERT INTO prompts (operation, text, folded, chars, used_at)
    SELECT p.operation, p.text, p.folded, p.chars, p.used_at FROM task_prompt_rows p WHERE true
    ORDER BY p.task
ON CONFLICT (operation, text) DO UPDATE SET used_at = max(used_at, excluded.used_at);

-- Tags: short words the user gives a task (see history.ParseTags for what
-- is allowed), found by tag:NAME in every filter; and a free note.
CREATE TABLE task_tags (
    task INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    tag  TEXT    NOT NULL,
    PRIMARY KEY (task, tag)
) WITHOUT ROWID;
CREATE INDEX task_tags_by_tag ON task_tags (tag, task);

ALTER TABLE tasks ADD COLUMN note TEXT NOT NULL DEFAULT '';
