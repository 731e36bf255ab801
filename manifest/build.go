package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/napkit/napkit/api"
)

// build accumulates one Set across sources, with the names seen so far and the errors met.
type build struct {
	kinds map[Kind]DecodeFunc
	keep  map[Kind]bool // kinds KeepObject reads, decoded ahead in parallel
	// templates are the decoded documents' shared parts, for documents that differ only in metadata
	templates   templates
	noTemplates bool
	share       bool                    // Decoder.ShareTemplates
	nodeClass   func(*api.AKSNodeClass) // Decoder.NodeClassRead
	templated   atomic.Int64            // documents read through a template, which tests count
	set         *Set
	seen        map[objectID]place // object identity → where it was first defined
	positions   positionArena
	errs        []error
	read        int        // documents handed to a DecodeFunc
	lastKind    Kind       // the kind decodeFunc found last
	lastFunc    DecodeFunc // and its DecodeFunc
}

func (d *Decoder) newBuild() *build {
	kinds := d.kinds
	if kinds == nil {
		kinds = DefaultKinds()
	}
	return &build{kinds: kinds, keep: keepKinds(kinds), noTemplates: d.noTemplates, share: d.ShareTemplates,
		nodeClass: d.NodeClassRead, set: &Set{}, seen: map[objectID]place{}}
}

// source reads every document of one input. Empty documents are not counted, so "document 1" is
// the first one with content. It returns how many documents had content.
func (b *build) source(data []byte, source string) int {
	index := 0
	raws := splitDocuments(data)
	// Most documents of a large input are kept objects: size the Set and the names for them at once.
	b.set.Objects = slices.Grow(b.set.Objects, len(raws))
	if len(b.seen) == 0 {
		b.seen = make(map[objectID]place, len(raws))
	}
	b.prepare(raws, source, func(p prepared) {
		if p.doc == nil {
			return
		}
		index++
		p.doc.Index = index
		switch {
		case p.err != nil:
			b.errs = append(b.errs, p.doc.wrap(p.err))
		case p.header != nil:
			b.errs = append(b.errs, p.doc.wrap(p.header))
		default:
			// Positions from the arena only during the walk: a DecodeFunc may keep the
			// document, and the arena is the walk's alone.
			p.doc.positions = &b.positions
			b.decode(p.doc)
			p.doc.positions = nil
		}
	})
	return index
}

// decode hands an identified document to its kind's DecodeFunc.
func (b *build) decode(doc *Document) {
	if doc.Kind == kindList && doc.Item == 0 {
		b.list(doc)
		return
	}
	decode, ok := b.decodeFunc(doc.Kind)
	if !ok {
		if err := b.unsupportedVersion(doc); err != nil {
			b.errs = append(b.errs, doc.wrap(err))
			return
		}
		b.skip(doc)
		return
	}
	if err := b.claim(doc); err != nil {
		b.errs = append(b.errs, doc.wrap(err))
		return
	}
	b.read++
	classes := len(b.set.NodeClasses)
	if err := decode(doc, b.set); err != nil {
		b.errs = append(b.errs, doc.wrap(err))
		return
	}
	if b.nodeClass != nil && len(b.set.NodeClasses) > classes {
		b.nodeClass(b.set.NodeClasses[classes])
	}
}

// decodeFunc is the kind's DecodeFunc. The last one found is kept: a large input is mostly
// documents of one kind in a row, and comparing two strings (the same ones, for documents read
// through one template) is cheaper than hashing them for the table.
func (b *build) decodeFunc(kind Kind) (DecodeFunc, bool) {
	if b.lastFunc != nil && kind == b.lastKind {
		return b.lastFunc, true
	}
	decode, ok := b.kinds[kind]
	if ok {
		b.lastKind, b.lastFunc = kind, decode
	}
	return decode, ok
}

// list decodes the items of a v1 List (what `kubectl get -o yaml` prints) as documents of their own.
// Their headers and typed decodes are done in parallel first (a dump of 10,000 Pods is one
// document, so the parallel stage had it on one core), then the items are walked in order.
func (b *build) list(doc *Document) {
	items, err := unwrapList(doc)
	if err != nil {
		b.errs = append(b.errs, doc.wrap(err))
		return
	}
	docs := make([]*Document, len(items))
	headers := make([]error, len(items))
	inParallel(len(items), func(i int) {
		item := &Document{Source: doc.Source, Index: doc.Index, Line: doc.Line, Item: i + 1, JSON: items[i]}
		docs[i] = item
		if headers[i] = readHeader(item); headers[i] == nil && b.keep[item.Kind] && item.Kind != kindList {
			obj, err := decodeTyped(item)
			item.pre = &predecoded{obj: obj, err: err}
		}
	})
	for i, item := range docs {
		if headers[i] != nil {
			b.errs = append(b.errs, item.wrap(headers[i]))
			continue
		}
		b.decode(item)
	}
}

// skip notes a document of a kind napkit does not read; it is not an error, so that manifests for the
// whole cluster can be passed as they are.
func (b *build) skip(doc *Document) {
	msg := fmt.Sprintf("skipped %s: napkit does not read %s", doc.Position(), doc.Kind)
	var versions []string
	for k := range b.kinds {
		if k.Kind == doc.Kind.Kind {
			versions = append(versions, k.String())
		}
	}
	if len(versions) > 0 {
		slices.Sort(versions)
		msg += fmt.Sprintf(" (it reads %s)", strings.Join(versions, ", "))
	}
	b.set.Notes = append(b.set.Notes, api.Note{Object: objectRef(doc.Kind.Kind, doc.Name), Message: msg})
}

// claim records the document's name and rejects a second object of the same kind and name: which
// one should win is the user's decision, not napkit's.
func (b *build) claim(doc *Document) error {
	if doc.Name == "" {
		return nil // typed kinds reject a missing name in Validate
	}
	id := objectID{kind: doc.Kind.Kind, namespace: doc.Namespace, name: doc.Name}
	if first, dup := b.seen[id]; dup {
		return decodeErr("%s is defined twice; first at %s", doc.Object(), first.position())
	}
	b.seen[id] = place{source: doc.Source, index: doc.Index, line: doc.Line, item: doc.Item}
	return nil
}

// objectID is what claim keeps apart: a kind, a namespace and a name.
type objectID struct{ kind, namespace, name string }

// place is where a document was read; its position is rendered only for a duplicate's message,
// which saves a string per document.
type place struct {
	source            string
	index, line, item int
}

func (p place) position() string { return position(p.source, p.index, p.line, p.item) }

// finish returns the sorted Set, or every error met. A Set with nothing in it is ErrNoObjects: a plan
// computed from it would be an empty answer to a question that was never read.
func (b *build) finish(sources []string) (*Set, error) {
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	if b.read == 0 {
		return nil, noObjects(strings.Join(sources, ", "), b.set.Notes)
	}
	b.set.finish()
	return b.set, nil
}
