// Package forms turns the catalog into input: huh forms generated from the
// rules of each operation and model, file inputs (local files become the
// data URIs the service accepts through api/catalog), and the subject and
// timeline editors.
package forms
