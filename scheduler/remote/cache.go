package remote

import (
	"container/list"
	"sync"
)

// bundleCache holds serialized bundles by hash, evicting the least
// recently used past a byte budget. A bundle larger than the whole budget
// is still kept while it is the only one, so that its job can run.
type bundleCache struct {
	mu     sync.Mutex
	limit  int64
	used   int64
	order  *list.List // of *cacheEntry, most recently used first
	byHash map[Hash]*list.Element
}

type cacheEntry struct {
	hash Hash
	data []byte
}

func newBundleCache(limit int64) *bundleCache {
	return &bundleCache{limit: limit, order: list.New(), byHash: map[Hash]*list.Element{}}
}

// get returns the bundle with hash h, marking it used.
func (c *bundleCache) get(h Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byHash[h]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).data, true
}

// put adds a bundle and evicts the least recently used others until the
// cache fits its budget.
func (c *bundleCache) put(h Hash, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byHash[h]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byHash[h] = c.order.PushFront(&cacheEntry{hash: h, data: data})
	c.used += int64(len(data))
	for c.used > c.limit && c.order.Len() > 1 {
		e := c.order.Back()
		ce := e.Value.(*cacheEntry)
		c.order.Remove(e)
		delete(c.byHash, ce.hash)
		c.used -= int64(len(ce.data))
	}
}

// size returns the bundles held and their bytes.
func (c *bundleCache) size() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}
