package manifest

// worker is one goroutine's state in the parallel stage (build.prepare): the slab its Pods come
// from, the templates it has met, and its counts not yet added to the build's.
//
// Why: with every document looked up in the shared cache (a read lock) and counted there (three
// atomic adds), two workers wrote to the same few cache lines for every document, each write
// making the other core fetch the line back. A worker now looks in its own map first, which holds
// only templates of the shared cache, and adds its counts to the build's once per chunk.
type worker struct {
	slab  podSlab
	known map[uint64][]*template // by restKey.hash
	// tried, reused and templated are this worker's counts since its last flush (see
	// templates.tried and build.templated).
	tried, reused, templated int64
}

// lookup returns the template of k among those the worker has met, or nil.
func (w *worker) lookup(k restKey, h uint64) *template {
	for _, tpl := range w.known[h] {
		if k.is(tpl.key) {
			return tpl
		}
	}
	return nil
}

// remember keeps a template of the shared cache for the worker's next lookups.
func (w *worker) remember(h uint64, tpl *template) {
	if w.known == nil {
		w.known = map[uint64][]*template{}
	}
	w.known[h] = append(w.known[h], tpl)
}

// flush adds the worker's counts to the build's.
func (w *worker) flush(b *build) {
	b.templates.tried.Add(w.tried)
	b.templates.reused.Add(w.reused)
	b.templated.Add(w.templated)
	w.tried, w.reused, w.templated = 0, 0, 0
}
