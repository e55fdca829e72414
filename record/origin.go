package record

// Origin names the front end that started a task.
type Origin string

const (
	OriginTUI Origin = "tui" // the terminal studio
	OriginCLI Origin = "cli" // a scripting command (clapper create)
	OriginMCP Origin = "mcp" // an AI agent through clapper mcp
)
