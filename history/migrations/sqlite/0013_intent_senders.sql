-- 0013: who is sending each request still submitting.
--
-- A request is of unknown outcome only when nobody is still sending it: its
-- sender (host/pid/token of a clapper process) stopped beating (beat_at is
-- renewed while the POST runs) or is a process of this machine that no
-- longer runs. A request an older clapper left has no row: nobody sends it.
-- The row goes once the request is answered, refused, attached or
-- abandoned.
CREATE TABLE intent_senders (
    task    INTEGER PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    sender  TEXT    NOT NULL,
    beat_at INTEGER NOT NULL
);
