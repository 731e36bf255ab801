package manifest

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// prepared is one document after the work that needs nothing but its own bytes: conversion to JSON,
// its header and, for a kind read by KeepObject, the strict typed decode. It is done for the
// documents of a source in parallel (GOMAXPROCS workers); the build walks the results in input
// order as they become ready, so the Set, the notes and the errors are the same as in a
// sequential run.
type prepared struct {
	doc    *Document // nil for an empty document
	err    error     // from the conversion to JSON
	header error     // from reading the header
}

// predecoded is KeepObject's typed decode, done ahead in the parallel stage.
type predecoded struct {
	obj k8sruntime.Object
	err error
}

// prepare converts and identifies every document of one source and calls visit with each, in
// input order, on the calling goroutine. Workers (GOMAXPROCS) take chunks of documents in order
// (chunkBounds); visit runs on a chunk as soon as it and the chunks before it are done. Why: walking the results
// (names, positions, the Set) is sequential, and waiting for the last document before starting it
// left a core idle for a fifth of reading 10,000 Pods.
func (b *build) prepare(raws []rawDoc, source string, visit func(prepared)) {
	workers := runtime.GOMAXPROCS(0)
	bounds := chunkBounds(len(raws), workers)
	chunks := len(bounds) - 1
	if workers <= 1 || chunks <= 1 {
		var w worker
		for _, raw := range raws {
			visit(b.prepareOne(raw, source, &w))
		}
		w.flush(b)
		return
	}
	out := make([]prepared, len(raws))
	done := make([]chan struct{}, chunks)
	for c := range done {
		done[c] = make(chan struct{})
	}
	var next atomic.Int64
	for range min(workers, chunks) {
		go func() {
			var w worker
			for c := int(next.Add(1) - 1); c < chunks; c = int(next.Add(1) - 1) {
				for i := bounds[c]; i < bounds[c+1]; i++ {
					out[i] = b.prepareOne(raws[i], source, &w)
				}
				w.flush(b)
				close(done[c])
				// Let the walk run now: it is ready (the close above), but with every P running a
				// worker, which never blocks, it would wait for the scheduler's preemption (10 ms),
				// and so would what the walk starts, such as napkit plan's catalogue.
				runtime.Gosched()
			}
		}()
	}
	for c := range chunks {
		<-done[c]
		for i := bounds[c]; i < bounds[c+1]; i++ {
			visit(out[i])
		}
	}
}

// chunkBounds cuts n documents into chunks for workers: chunk c is [bounds[c], bounds[c+1]). Chunks
// are few enough that handing them out costs nothing and small enough that the walk starts soon and
// every worker gets several: up to 64 documents, n/(8*workers) for a smaller input. The first ones
// are smaller still, 1, 2, 4, ... documents, because the walk waits for the first chunk and its
// first documents are often what the caller starts other work from (napkit plan builds the catalogue
// of the first AKSNodeClass while the rest is read), where a first chunk of 64 Pods, one of which
// meets every reflective type of a Pod for the first time, made that work start 4 ms late.
func chunkBounds(n, workers int) []int {
	size := max(1, min(64, n/(8*workers)))
	bounds := make([]int, 1, n/size+8)
	for chunk, end := min(1, size), 0; end < n; chunk = min(2*chunk, size) {
		end = min(n, end+chunk)
		bounds = append(bounds, end)
	}
	return bounds
}

// inParallel calls f(i) for every i in [0, n) on GOMAXPROCS goroutines and returns once all
// calls have.
func inParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// prepareOne converts one document; its Index is set by the build, which counts non-empty ones.
func (b *build) prepareOne(raw rawDoc, source string, w *worker) prepared {
	if !raw.json && !b.noTemplates {
		if p, ok := b.fromTemplate(raw, source, w); ok {
			return p
		}
	}
	js, hdr, err := toJSON(raw)
	if js == nil && err == nil {
		return prepared{}
	}
	doc := &Document{Source: source, Line: raw.line, JSON: js}
	if err != nil {
		return prepared{doc: doc, err: err}
	}
	if hdr == nil || !hdr.apply(doc) {
		if err := readHeader(doc); err != nil {
			return prepared{doc: doc, header: err}
		}
	}
	if b.keep[doc.Kind] && doc.Kind != kindList {
		obj, err := decodeTyped(doc)
		doc.pre = &predecoded{obj: obj, err: err}
	}
	return prepared{doc: doc}
}

// keepKinds are the kinds of the table that KeepObject reads, which the parallel stage decodes ahead.
func keepKinds(kinds map[Kind]DecodeFunc) map[Kind]bool {
	keep := reflect.ValueOf(KeepObject).Pointer()
	out := map[Kind]bool{}
	for k, f := range kinds {
		if _, typed := rawKinds[k]; typed && f != nil && reflect.ValueOf(f).Pointer() == keep {
			out[k] = true
		}
	}
	return out
}

// fastHeader is a header read from the fast converter's tree, which saves parsing the JSON again.
type fastHeader struct{ apiVersion, kind, name, namespace string }

// headerOf reads the header fields of a converted document, or nil where one is not a string (the
// JSON path then words the error).
func headerOf(m map[string]any) *fastHeader {
	var h fastHeader
	var ok bool
	if h.apiVersion, ok = stringOrAbsent(m, "apiVersion"); !ok {
		return nil
	}
	if h.kind, ok = stringOrAbsent(m, "kind"); !ok {
		return nil
	}
	switch meta := m["metadata"].(type) {
	case nil:
	case map[string]any:
		if h.name, ok = stringOrAbsent(meta, "name"); !ok {
			return nil
		}
		if h.namespace, ok = stringOrAbsent(meta, "namespace"); !ok {
			return nil
		}
	default:
		return nil
	}
	return &h
}

func stringOrAbsent(m map[string]any, key string) (string, bool) {
	switch v := m[key].(type) {
	case nil:
		return "", true
	case string:
		return v, true
	}
	return "", false
}

// apply identifies doc; false when apiVersion or kind is missing, which readHeader words.
func (h *fastHeader) apply(doc *Document) bool {
	if h.apiVersion == "" || h.kind == "" {
		return false
	}
	doc.Kind = Kind{APIVersion: h.apiVersion, Kind: h.kind}
	doc.Name, doc.Namespace = h.name, h.namespace
	return true
}
