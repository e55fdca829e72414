package catalog

// Builders of the fields many operations share, each named for the spec's
// words it transcribes.

func rng(min, max float64) *Range { return &Range{Min: min, Max: max, HasMax: true} }

func modelField(models []string) Field {
	return Field{Name: "model", Kind: KindEnum, Required: true, Options: models, Help: "model to run"}
}

func promptField(max int, required bool) Field {
	return Field{Name: "prompt", Kind: KindText, Required: required, MaxChars: max, Help: "what to generate"}
}

func imagesField(min, max int, help string) Field {
	return Field{Name: "images", Kind: KindMediaList, Media: MediaImage, Required: min > 0, MinItems: min, MaxItems: max, Help: help}
}

func durationField(def, min, max int) Field {
	f := Field{Name: "duration", Kind: KindInt, Unit: "seconds", Help: "length of the video"}
	if def > 0 {
		f.Default = def
	}
	if max > 0 {
		f.Range = rng(float64(min), float64(max))
	} else {
		f.Range = &Range{Min: 1}
	}
	return f
}

func enumField(name, def string, options []string, help string) Field {
	f := Field{Name: name, Kind: KindEnum, Options: options, Help: help}
	if def != "" {
		f.Default = def
	}
	return f
}

func boolField(name string, def any, help string) Field {
	return Field{Name: name, Kind: KindBool, Default: def, Help: help}
}

func payloadField() Field {
	return Field{Name: "payload", Kind: KindText, MaxChars: maxPayload, Help: "pass-through value returned unchanged"}
}

func callbackField() Field {
	return Field{Name: "callback_url", Kind: KindURL, Help: "URL receiving status callbacks"}
}

// seedField: "omitted or 0 = random seed; other value used as given", so
// negative seeds (-1 is common for "random" in other clients) pass too.
func seedField() Field {
	return Field{Name: "seed", Kind: KindInt, Range: rng(-maxSeed, maxSeed), Help: "0 or unset: random"}
}

// sharedVideoFields: "Shared optional video request fields". wmDefault
// differs for svcq1 in text2video, whose positions are numbered differently.
func sharedVideoFields(offPeak bool, wmDefault int, wmHelp string) []Field {
	fs := []Field{seedField(), payloadField()}
	if offPeak {
		fs = append(fs, boolField("off_peak", false, "generate off-peak within 48 h at lower cost"))
	}
	return append(fs,
		boolField("watermark", false, "add a fixed AI-generated watermark"),
		Field{Name: "wm_position", Kind: KindInt, Default: wmDefault, Range: rng(1, 4), Help: wmHelp},
		Field{Name: "wm_url", Kind: KindURL, Help: "image URL of a custom watermark"},
		Field{Name: "meta_data", Kind: KindJSONText, Help: "JSON metadata passed through (Label, ContentProducer, ...)"},
		callbackField(),
	)
}
