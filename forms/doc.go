// Package forms is clapper's own form engine for the service's requests.
//
// A Form is generated from the catalog's fields for one operation and model:
// one row per field, with the widget the field's kind asks for (a line, a
// choice, a list of files or URLs, the subject and timing editors, a text
// area), an advanced group folded away, and a review step. Values live in
// editors kept by field name, so switching models keeps what was typed and
// flags what the new model lacks. The engine owns focus, keys, layout and
// checking; huh supplies only its text input widget and the theme it is
// styled with (huh's own Form and groups are not used: they cannot hide one
// field, nor keep values across a model switch).
//
// Checking (Check) runs in a command on every change: local files are read
// (cached by size and time) and measured, the body is relabelled, validated
// and normalized by the catalog, priced and held against the spending caps
// through functions the front end hands over in Context. The form keeps
// paths as typed; what is sent is the checked body. Drafts keep what was
// typed across restarts; the subject and timeline editors are sub-forms of
// their own.
package forms
