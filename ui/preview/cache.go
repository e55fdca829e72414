package preview

import (
	"container/list"
	"sync"
)

// cacheBytes bounds the memory of a Cache whatever its entry count: kitty
// copies of previews on a wide terminal run to megabytes each.
const cacheBytes = 32 << 20

// Cache keeps the most recently used previews, so that going back to a task
// or redrawing after a resize to a size seen before does not decode again.
// An entry is keyed by the file's path, modification time and size and by
// the cell box, so a file rewritten by a new download is decoded afresh.
// Failures are not kept: a file still being downloaded is read again next
// time. It is safe for concurrent use; two goroutines missing the same entry
// at once both decode it, which costs time but not correctness.
type Cache struct {
	mu    sync.Mutex
	max   int
	bytes int
	lru   *list.List // of *entry, most recent first
	index map[cacheKey]*list.Element
}

type cacheKey struct {
	path       string
	modNano    int64
	size       int64
	cols, rows int
	kitty      bool
}

type entry struct {
	key   cacheKey
	cells *Cells
}

// NewCache returns a cache holding at most n previews (at least one).
func NewCache(n int) *Cache {
	return &Cache{max: max(n, 1), lru: list.New(), index: make(map[cacheKey]*list.Element)}
}

// Load is [Load] through the cache.
func (c *Cache) Load(path string, cols, rows int) (*Cells, error) {
	return c.load(path, cols, rows, false)
}

// LoadForKitty is [LoadForKitty] through the cache.
func (c *Cache) LoadForKitty(path string, cols, rows int) (*Cells, error) {
	return c.load(path, cols, rows, true)
}

func (c *Cache) load(path string, cols, rows int, kitty bool) (*Cells, error) {
	f, info, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	k := cacheKey{path, info.ModTime().UnixNano(), info.Size(), cols, rows, kitty}
	if cells := c.get(k); cells != nil {
		return cells, nil
	}
	cells, err := decode(f, path, cols, rows, kitty)
	if err != nil {
		return nil, err
	}
	return c.put(k, cells), nil
}

func (c *Cache) get(k cacheKey) *Cells {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*entry).cells
	}
	return nil
}

// put stores cells under k and returns what the cache now holds for k: the
// entry another goroutine stored first, if one did, so that every caller
// shares one *Cells and its rendered text.
func (c *Cache) put(k cacheKey, cells *Cells) *Cells {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*entry).cells
	}
	c.index[k] = c.lru.PushFront(&entry{k, cells})
	c.bytes += cells.bytes()
	for c.lru.Len() > c.max || (c.bytes > cacheBytes && c.lru.Len() > 1) {
		old := c.lru.Remove(c.lru.Back()).(*entry)
		delete(c.index, old.key)
		c.bytes -= old.cells.bytes()
	}
	return cells
}
