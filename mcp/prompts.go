package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
)

// The prompts are three pieces of studio work an agent can do with the
// tools alone, each with its checks: a clip from an idea (an image, then a
// video from it), a multi-scene storyboard, and a cloned voice that
// speaks. Each names only tools the server lists; a step whose tool the
// options left out says so instead of naming it.

func (s *Server) addPrompts() {
	s.sdk.AddPrompt(&sdk.Prompt{Name: "clip_from_idea", Title: "A clip from an idea",
		Description: "Turns an idea into a short video: a still image first (reference2image), checked and shown, then a video from it (img2video).",
		Arguments: []*sdk.PromptArgument{
			{Name: "idea", Title: "The idea", Description: "what the clip shows, in a sentence or two", Required: true},
			{Name: "seconds", Title: "Length", Description: "the video's length in seconds (default 5)"},
			{Name: "aspect_ratio", Title: "Frame shape", Description: "16:9, 9:16 or 1:1 (default 16:9)"},
		}}, s.clipPrompt)
	s.sdk.AddPrompt(&sdk.Prompt{Name: "storyboard", Title: "A multi-scene storyboard",
		Description: "Plans a story as scenes, makes it as one multi-scene job (general_one_click), reviews each scene, remakes the weak ones and composes the film.",
		Arguments: []*sdk.PromptArgument{
			{Name: "story", Title: "The story", Description: "what happens, start to end", Required: true},
			{Name: "scenes", Title: "Scenes", Description: "how many scenes (default 4)"},
		}}, s.storyboardPrompt)
	s.sdk.AddPrompt(&sdk.Prompt{Name: "clone_then_speak", Title: "Clone a voice, then speak",
		Description: "Clones a voice from a recording (audio-clone) and has it say a text (audio-tts), which also keeps the voice from expiring.",
		Arguments: []*sdk.PromptArgument{
			{Name: "recording", Title: "Recording", Description: "an https URL of 10 s to 5 min of clear speech (mp3, m4a or wav)", Required: true},
			{Name: "text", Title: "Text", Description: "what the cloned voice says", Required: true},
		}}, s.speakPrompt)
}

// tool names a tool in a prompt's steps, or says it is not offered.
func (s *Server) tool(name string) string {
	if s.listed(name) {
		return name
	}
	return name + " (not offered by this server's options: ask the person to enable it)"
}

// listed reports whether the server lists a tool.
func (s *Server) listed(name string) bool { return s.listedNames[name] }

// creator names how to create op: its own tool, or the compact one.
func (s *Server) creator(op string) string {
	if s.opts.Compact {
		return s.tool("create") + " with operation " + op
	}
	return s.tool(ToolName(api.Operation(op)))
}

func prompt(desc, text string) *sdk.GetPromptResult {
	return &sdk.GetPromptResult{Description: desc, Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}
}

// badArgument is an argument a prompt cannot take: the protocol's invalid
// params, naming it and what it takes.
func badArgument(format string, a ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// intArg reads a whole-number argument within lo..hi, def when absent.
func intArg(args map[string]string, name string, def, lo, hi int) (int, error) {
	v := strings.TrimSpace(args[name])
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badArgument("%s: give a whole number from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

func required(args map[string]string, name string) (string, error) {
	v := strings.TrimSpace(args[name])
	if v == "" {
		return "", badArgument("%s: required", name)
	}
	return v, nil
}

func (s *Server) clipPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args := req.Params.Arguments
	idea, err := required(args, "idea")
	if err != nil {
		return nil, err
	}
	secs, err := intArg(args, "seconds", 5, 1, 16)
	if err != nil {
		return nil, err
	}
	ratio := strings.TrimSpace(args["aspect_ratio"])
	if ratio == "" {
		ratio = "16:9"
	}
	text := fmt.Sprintf(`Make a %d-second video clip (aspect ratio %s) of this idea with clapper:

%s

Work in these steps, and stop to tell me if any step fails:
1. Write one vivid image prompt for the clip's opening frame, and one short motion prompt for what moves and how the camera moves.
2. Call %s for reference2image and for img2video to learn the models' rules (the durations and aspect ratios each takes).
3. Call %s on the reference2image request (model svcq2, no images, the image prompt, aspect_ratio %s). If it names problems, fix them; tell me the price and where the credit caps stand before you go on.
4. Send it with %s. Wait with %s until it succeeds, then save it with %s and show me the image (its resource).
5. Ask me whether the image is right. If not, change the image prompt and make it again.
6. Build the img2video request: the image's result URL from get_task as the image, the motion prompt, duration %d, and a model whose rules take that duration and ratio. Check it with %s, tell me its price, then send it with %s.
7. Wait with %s (it reports progress), save the video with %s, and give me its file path and resource.`,
		secs, ratio, idea, s.tool("describe_operation"), s.tool("validate_request"), ratio, s.creator("reference2image"),
		s.tool("wait_task"), s.tool("download_results"), secs, s.tool("validate_request"), s.creator("img2video"),
		s.tool("wait_task"), s.tool("download_results"))
	return prompt("A clip from an idea: image, then video", text), nil
}

func (s *Server) storyboardPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args := req.Params.Arguments
	story, err := required(args, "story")
	if err != nil {
		return nil, err
	}
	n, err := intArg(args, "scenes", 4, 2, 10)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Make a short film of %d scenes from this story with clapper:

%s

1. Write the storyboard: for each scene, one line of what we see and hear. Show it to me and wait for my yes.
2. Call %s for general_one_click to learn its rules, then build one request whose prompt tells the whole story scene by scene. Check it with %s and tell me the price and where the caps stand.
3. Send it with %s and follow it with %s until it succeeds.
4. Call %s with its task id: list each scene with its versions and tell me which look weak from their prompts and states.
5. For each scene I want changed, call %s with a sharper prompt, then %s until the new versions are done.
6. Call %s to compose the film from the chosen versions, follow it with %s, and save it with %s. Give me the file path.`,
		n, story, s.tool("describe_operation"), s.tool("validate_request"), s.creator("general_one_click"), s.tool("wait_task"),
		s.tool("get_scenes"), s.tool("edit_scene"), s.tool("get_scenes"), s.tool("compose_scenes"), s.tool("get_scenes"),
		s.tool("download_results"))
	return prompt("A storyboard made as one multi-scene job", text), nil
}

func (s *Server) speakPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args := req.Params.Arguments
	rec, err := required(args, "recording")
	if err != nil {
		return nil, err
	}
	say, err := required(args, "text")
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Clone a voice from this recording and have it say a text, with clapper.

Recording: %s
Text: %s

1. Call %s to see the voices there are: if a cloned voice from this recording is still alive, use it and skip to step 4.
2. Choose a voice_id (8 to 256 characters, starting with a letter; letters, digits, - and _). Call %s for audio-clone with the recording as audio_url and that voice_id; fix what it names and tell me the price.
3. Send it with %s and wait for it with %s.
4. Call %s for audio-tts with the voice_id and the text; check the price, then send it with %s.
5. Wait with %s, save it with %s, and give me the audio's file path and resource. Tell me that using the voice in speech keeps it from being deleted after 7 days.`,
		rec, say, s.tool("list_voices"), s.tool("validate_request"), s.creator("audio-clone"), s.tool("wait_task"),
		s.tool("validate_request"), s.creator("audio-tts"), s.tool("wait_task"), s.tool("download_results"))
	return prompt("Clone a voice, then speak with it", text), nil
}
