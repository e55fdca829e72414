package studio

import (
	"context"

	"clapper/track"
)

// WatcherForTest hands this package's external tests the watcher, to drive
// its reads step by step on a fake clock.
func (s *Studio) WatcherForTest() *track.Watcher { return s.watcher }

// PublishForTest reports e as the downloader or the set runner do.
func (s *Studio) PublishForTest(e Event) { s.publish(e) }

// SaveEventForTest saves what a success event carries, as the relay does
// when auto-download is on.
func (s *Studio) SaveEventForTest(ctx context.Context, e Event) error { return s.saveEvent(ctx, e) }
