package manifest

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// prepared is one document after the work that needs nothing but its own bytes: conversion to JSON,
// its header and, for a kind read by KeepObject, the strict typed decode. It is done for all
// documents of a source in parallel (GOMAXPROCS workers); the build then walks the results in input
// order, so the Set, the notes and the errors are the same as in a sequential run.
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

// prepare converts and identifies every document of one source, in parallel, keeping input order.
func (b *build) prepare(raws []rawDoc, source string) []prepared {
	out := make([]prepared, len(raws))
	workers := min(runtime.GOMAXPROCS(0), len(raws))
	if workers <= 1 {
		for i := range raws {
			out[i] = b.prepareOne(raws[i], source)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(raws); i = int(next.Add(1) - 1) {
				out[i] = b.prepareOne(raws[i], source)
			}
		}()
	}
	wg.Wait()
	return out
}

// prepareOne converts one document; its Index is set by the build, which counts non-empty ones.
func (b *build) prepareOne(raw rawDoc, source string) prepared {
	if !raw.json && !b.noTemplates {
		if p, ok := b.fromTemplate(raw, source); ok {
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
