// Package record is the neutral ground between the studio's front ends and
// its storage: the record's types (tasks and their events, requests and
// results, downloads, jobs and versions, voices, sets, prompts, uploads and
// subjects, spending) and its verbs, as role interfaces (roles.go).
//
// Front ends (ui, cli, mcp) and tracking (track) speak only these types and
// interfaces; the SQLite history implements Store, and a second backend
// (the team's PostgreSQL) implements the same. Nothing here does I/O except
// the pure parsing of search words, tags and request bodies (StripMedia).
package record
