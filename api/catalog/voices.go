package catalog

// SystemVoice is one of the service's own voices, used by id without
// cloning. The service publishes its list only as a web page; these are the
// ids public clients send (service notes, Speech voices).
type SystemVoice struct {
	ID, Description string
}

// SystemVoices are offered beside cloned voices wherever a voice is chosen.
var SystemVoices = []SystemVoice{
	{"professional_host", "professional host, neutral"},
	{"female-shaonv", "young woman, Chinese"},
	{"male-qn-jingying", "young man, elite, Chinese"},
	{"male-qn-daxuesheng", "young man, student, Chinese"},
	{"female-yujie", "mature woman, Chinese"},
	{"lovely_girl", "lovely girl"},
	{"English_Trustworthy_Man", "trustworthy man, English"},
	{"English_Graceful_Lady", "graceful lady, English"},
	{"Japanese_GentleButler", "gentle butler, Japanese"},
	{"Japanese_KindLady", "kind lady, Japanese"},
	{"Korean_SweetGirl", "sweet girl, Korean"},
}

// IsSystemVoice reports whether id names one of the service's own voices.
func IsSystemVoice(id string) bool {
	for _, v := range SystemVoices {
		if v.ID == id {
			return true
		}
	}
	return false
}
