package ui

import (
	tea "charm.land/bubbletea/v2"
)

// route hands a data message to the screen it is for. What the root does
// not know (the forms' and huh's own messages) goes to every page, each
// ignoring what is not its own, and to the detail when open.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case windowLoadedMsg:
		for _, i := range []int{pageTasks, pageHistory} {
			if m.pages[i].(interface{ window() *taskWindow }).window() == msg.win {
				cmd := m.pages[i].Update(msg)
				if i == pageTasks && m.afterFirstRows != nil {
					cmd = tea.Batch(append(m.afterFirstRows, cmd)...)
					m.afterFirstRows = nil
				}
				return cmd
			}
		}
		return nil // a list replaced since it asked
	case unknownLoadedMsg, selectTaskMsg:
		return m.pages[pageTasks].Update(msg)
	case historyStatsMsg:
		return m.pages[pageHistory].Update(msg)
	case jobsLoadedMsg, sceneJobLoadedMsg, sceneThumbMsg, sceneNudgeMsg, sceneEditorClosedMsg, sceneSentMsg, composedSavedMsg:
		return m.pages[pageScenes].Update(msg)
	case voicesLoadedMsg, voiceReminderMsg, subjectsLoadedMsg:
		return m.pages[pageVoices].Update(msg)
	case draftsFoundMsg, voicesForFormMsg, draftLoadedMsg, draftSavedMsg, discardDraftMsg, draftDiscardedMsg, sentMsg:
		return m.pages[pageNew].Update(msg)
	case detailLoadedMsg, previewLoadedMsg:
		if m.detail == nil {
			return nil
		}
		return m.detail.Update(msg)
	}
	var cmds []tea.Cmd
	for _, p := range m.pages {
		cmds = append(cmds, p.Update(msg))
	}
	if m.detail != nil {
		cmds = append(cmds, m.detail.Update(msg))
	}
	return tea.Batch(cmds...)
}
