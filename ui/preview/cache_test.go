package preview

import (
	"image"
	"image/color"
	"os"
	"sync"
	"testing"
	"time"
)

func TestCacheHitMissAndEviction(t *testing.T) {
	a := writeFile(t, "a.png", encode(t, halves(8, 8, red, blue), pngEnc))
	b := writeFile(t, "b.png", encode(t, halves(8, 8, green, white), pngEnc))
	c := NewCache(2)

	first, err := c.Load(a, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Load(a, 10, 5); again != first {
		t.Error("the same file and box decoded again; want a cache hit")
	}
	other, _ := c.Load(a, 20, 5)
	if other == first || other.Cols != 10 || first.Cols != 10 {
		// 8x8 pixels in 20x5 cells: limited by the height, 10 pixels wide.
		t.Errorf("another box must be another entry: %p %p, %d cols", first, other, other.Cols)
	}
	if k, _ := c.LoadForKitty(a, 10, 5); k == first || k.sharp == nil {
		t.Error("a kitty load must not be served the half-block-only entry")
	}
	// Capacity 2: the kitty entry and (a, 20x5) are the newest; (a, 10x5)
	// was evicted.
	if again, _ := c.Load(a, 10, 5); again == first {
		t.Error("the least recently used entry was kept beyond the capacity")
	}
	if n := c.lru.Len(); n != 2 {
		t.Errorf("cache holds %d entries, want 2", n)
	}

	// Using an entry makes it the most recent: b pushes out the other one.
	kept, _ := c.Load(a, 10, 5)
	if _, err := c.Load(b, 10, 5); err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Load(a, 10, 5); again != kept {
		t.Error("the recently used entry was evicted")
	}
}

func TestCacheSeesARewrittenFile(t *testing.T) {
	// Same size (PNG decoders ignore bytes after the end chunk), so only
	// the modification time tells the two files apart.
	old, rewritten := encode(t, halves(8, 8, red, red), pngEnc), encode(t, halves(8, 8, blue, blue), pngEnc)
	n := max(len(old), len(rewritten))
	old, rewritten = append(old, make([]byte, n-len(old))...), append(rewritten, make([]byte, n-len(rewritten))...)
	path := writeFile(t, "result.png", old)
	c := NewCache(4)
	before, err := c.Load(path, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	after, err := c.Load(path, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if after == before || after.pix.NRGBAAt(0, 0) != blue {
		t.Errorf("the rewritten file was served from the cache: %v", after.pix.NRGBAAt(0, 0))
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	whole := encode(t, halves(8, 8, red, blue), pngEnc)
	path := writeFile(t, "download.png", whole[:len(whole)/2])
	c := NewCache(4)
	if _, err := c.Load(path, 4, 2); err == nil {
		t.Fatal("a half-written file loaded")
	}
	if err := os.WriteFile(path, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(path, 4, 2); err != nil {
		t.Errorf("the finished download still fails: %v", err)
	}
}

func TestCacheBoundsMemory(t *testing.T) {
	c := NewCache(100)
	// About 6 MB each: 4 MB of pixels, 2 MB of text once drawn.
	big := &Cells{Cols: 1000, Rows: 50, pix: image.NewNRGBA(image.Rect(0, 0, 1000, 1000))}
	for i := range 100 {
		c.put(cacheKey{path: "p", cols: i}, big)
	}
	if c.bytes > cacheBytes || c.lru.Len() >= 100 {
		t.Errorf("cache holds %d bytes in %d entries; the budget is %d", c.bytes, c.lru.Len(), cacheBytes)
	}
	huge := FromImage(halves(8, 8, red, blue), 8, 4)
	huge.sharp = image.NewNRGBA(image.Rect(0, 0, 3000, 3000))
	c.put(cacheKey{path: "huge"}, huge)
	if c.lru.Len() != 1 || c.get(cacheKey{path: "huge"}) != huge {
		t.Error("an entry over the budget on its own should still be kept, alone")
	}
}

func TestCacheConcurrentUse(t *testing.T) {
	paths := []string{
		writeFile(t, "a.png", encode(t, halves(16, 16, red, blue), pngEnc)),
		writeFile(t, "b.png", encode(t, halves(16, 16, green, white), pngEnc)),
		writeFile(t, "c.png", encode(t, pixels([]color.NRGBA{red}), pngEnc)),
	}
	c := NewCache(2)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 30 {
				cells, err := c.Load(paths[(g+i)%len(paths)], 4+i%3, 2)
				if err != nil {
					t.Error(err)
					return
				}
				_ = cells.HalfBlock()
			}
		})
	}
	wg.Wait()
	if n := c.lru.Len(); n != 2 || len(c.index) != 2 {
		t.Errorf("cache holds %d entries (%d indexed), want 2", n, len(c.index))
	}
}
