package manifest

// objectID is what claim keeps apart: a kind, a namespace and a name.
type objectID struct{ kind, namespace, name string }

// claims are the objects read so far and where each was first defined. They are indexed by name
// alone, each name leading to a chain of the objects of that name (one, nearly always), and each
// claim holds its kind and namespace, and its source, as indices into short lists. Why: a map keyed
// by the whole objectID hashed three strings per lookup and held 88-byte entries (1.4 MB for 10,000
// Pods, first touched on the sequential walk); a name's string map holds 24-byte entries and uses
// the runtime's string-key fast path, and a claim is 24 bytes appended in order.
type claims struct {
	byName  map[string]int32 // name → its last claim's index in claimed
	claimed []claimed
	groups  interned[objectGroup] // the (kind, namespace) pairs claimed
	sources interned[string]
}

type objectGroup struct{ kind, namespace string }

type claimed struct {
	group, source     int32
	index, line, item int32 // of the place: a source is at most Decoder.MaxBytes (64 MiB) long
	prev              int32 // the claim of the same name before this one, or -1
}

// grow makes room for n more claims.
func (c *claims) grow(n int) {
	if c.byName == nil {
		c.byName = make(map[string]int32, n)
	}
	if free := cap(c.claimed) - len(c.claimed); free < n {
		c.claimed = append(make([]claimed, 0, len(c.claimed)+n), c.claimed...)
	}
}

// claim records id as defined at p, unless it was already: then it returns where, and true.
func (c *claims) claim(id objectID, p place) (first place, dup bool) {
	if c.byName == nil {
		c.byName = map[string]int32{}
	}
	group := c.groups.index(objectGroup{id.kind, id.namespace})
	head, ok := c.byName[id.name]
	if !ok {
		head = -1
	}
	for i := head; i >= 0; i = c.claimed[i].prev {
		if e := &c.claimed[i]; e.group == group {
			return place{source: c.sources.values[e.source], index: int(e.index), line: int(e.line), item: int(e.item)}, true
		}
	}
	c.byName[id.name] = int32(len(c.claimed))
	c.claimed = append(c.claimed, claimed{group: group, source: c.sources.index(p.source),
		index: int32(p.index), line: int32(p.line), item: int32(p.item), prev: head})
	return place{}, false
}

// interned numbers distinct values in order of first sight. The value asked for last is checked
// first: the documents of a large input mostly come in runs of one kind, namespace and source.
type interned[T comparable] struct {
	values []T
	ids    map[T]int32
	last   int32
}

func (in *interned[T]) index(v T) int32 {
	if len(in.values) > 0 && in.values[in.last] == v {
		return in.last
	}
	id, ok := in.ids[v]
	if !ok {
		if in.ids == nil {
			in.ids = map[T]int32{}
		}
		id = int32(len(in.values))
		in.values = append(in.values, v)
		in.ids[v] = id
	}
	in.last = id
	return id
}
