package catalog

import (
	"errors"
	"testing"
)

// An editor points at the broken marker, so the error must say where it is.
func TestPauseErrorPointsAtTheMarker(t *testing.T) {
	cases := []struct {
		text   string
		style  Pauses
		marker string
	}{
		{"Hello <#1.5#> there <#1.555#> friend", PausesTTS, "<#1.555#>"},
		{"<#1#> starts with a pause", PausesTTS, "<#1#>"},
		{"one <#1#><#2#> two", PausesTTS, "<#2#>"},
		{"ends with a pause <#2#>", PausesTTS, "<#2#>"},
		{"sing #100# loud", PausesLipSync, "#100#"},
		{"x <#abc#> y", PausesTTS, "<#abc#>"},
	}
	for _, c := range cases {
		_, err := SplitPauses(c.text, c.style)
		var pe *PauseError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: want a PauseError, got %v", c.text, err)
		}
		if got := c.text[pe.Offset : pe.Offset+pe.Length]; got != c.marker {
			t.Errorf("%q: points at %q, want %q (%s)", c.text, got, c.marker, pe.Message)
		}
	}
}

// A marker that lost its closing # is named on its own, where it stands,
// never read as one marker with the next; a < or > in plain text is text.
func TestAnUnclosedMarkerIsNamedAlone(t *testing.T) {
	for text, want := range map[string]string{
		"Hello <#1.5> there <#2#> friend": "pause <#1.5>: a marker ends with #>",
		"Hello <#1.5 there":               "pause <#1.5: a marker ends with #>",
		"Hello <#1.5<#2#> there":          "pause <#1.5: a marker ends with #>",
	} {
		_, err := SplitPauses(text, PausesTTS)
		var pe *PauseError
		if !errors.As(err, &pe) || pe.Message != want+", as <#1.5#>" || text[pe.Offset:pe.Offset+2] != "<#" {
			t.Errorf("%q: %v, want %q at the marker", text, err, want)
		}
	}
	for _, fine := range []string{"a < b and c > d <#1.5#> e", "Hello <#1.5#> there <#2#> friend"} {
		if _, err := SplitPauses(fine, PausesTTS); err != nil {
			t.Errorf("%q: %v", fine, err)
		}
	}
}
