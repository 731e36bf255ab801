package manifest

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"
)

// maxTemplates bounds the templates one build keeps: a workload's pods share one, so a few hundred
// cover any real manifest set, and an input of all-different documents cannot double its memory.
const maxTemplates = 1024

// templates caches, for one build, what documents of a kept kind have in common apart from their
// top-level metadata block: pods generated from one workload differ only in name, uid and labels.
// The key is the document's text without that block. A document whose rest was seen before is
// converted and decoded only in its metadata, and its typed value is a deep copy of the rest's
// decoded value with that metadata set, which is what the full path would give (see fromTemplate).
//
// Why: converting and strictly decoding 10,000 Pods of a few shapes was most of `napkit plan`'s CPU.
type templates struct {
	mu sync.RWMutex
	m  map[uint64][]*template // by restKey.hash
	n  int                    // templates in m
	// tried and reused count the documents looked up and those whose template existed: where
	// documents rarely share one (a dump of running pods, each with its own node and status), the
	// lookup and the copy only add work, so after giveUpAfter tries with under one reuse in eight
	// the build stops looking.
	tried, reused atomic.Int64
}

// giveUpAfter is how many lookups templates.worthIt waits for before judging the reuse rate.
const giveUpAfter = 256

// worthIt reports whether documents still share templates often enough to look them up, from the
// build's counts and those w has not added to them yet.
func (t *templates) worthIt(w *worker) bool {
	tried := t.tried.Load() + w.tried
	return tried < giveUpAfter || (t.reused.Load()+w.reused)*8 >= tried
}

// template is the rest of a document (its text without the metadata block), converted and decoded.
type template struct {
	key           []byte // the rest's text
	ok            bool   // false: the rest does not take the shortcut, the full path reads the document
	kind          Kind   // apiVersion and kind of the rest
	before, after []byte // JSON of the rest's top-level entries that sort before and after "metadata"
	typed         k8sruntime.Object
}

// metadataOnly is the document a metadata block converts to; decoding it strictly into this type
// is decoding it into the ObjectMeta every kept kind embeds under "metadata".
type metadataOnly struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
}

// restKey is a document's text without its metadata block: the text before and after it. Looking
// a template up by the two parts, hashed and compared in place, saves joining them (a copy of the
// document) for every document but the first of each shape.
type restKey struct{ head, tail []byte }

// restSeed seeds restKey.hash; which seed does not matter, the hash only spreads the map's entries.
var restSeed = maphash.MakeSeed()

func (k restKey) hash() uint64 {
	var h maphash.Hash
	h.SetSeed(restSeed)
	h.Write(k.head)
	h.Write(k.tail)
	return h.Sum64()
}

func (k restKey) is(key []byte) bool {
	return len(key) == len(k.head)+len(k.tail) && bytes.Equal(key[:len(k.head)], k.head) && bytes.Equal(key[len(k.head):], k.tail)
}

func (t *templates) get(k restKey, h uint64) *template {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, tpl := range t.m[h] {
		if k.is(tpl.key) {
			return tpl
		}
	}
	return nil
}

// put stores tpl unless the cache is full; it reports whether tpl is shared from now on. A
// template another worker stored for the same rest meanwhile is replaced: both are the same.
func (t *templates) put(h uint64, tpl *template) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[uint64][]*template{}
	}
	for i, old := range t.m[h] {
		if bytes.Equal(old.key, tpl.key) {
			t.m[h][i] = tpl
			return true
		}
	}
	if t.n >= maxTemplates {
		return false
	}
	t.m[h] = append(t.m[h], tpl)
	t.n++
	return true
}

// fromTemplate prepares a YAML document through its template; false sends it down the full path,
// which also words every error. It takes a document only where the fast converter takes both its
// rest and its metadata block and both decode without error, so the JSON, header and typed value
// are those of the full path:
//   - the fast converter parses a top-level mapping entry by entry, each entry's value being the
//     lines up to the next key at indentation 0, so the whole converts exactly when the rest and the
//     block do and the rest has no second "metadata" key, to the union of both (keys sorted);
//   - a strict decode fills each top-level field from its own key, and every kept kind's
//     "metadata" is its ObjectMeta; the pod-resource check reads only the spec.
func (b *build) fromTemplate(raw rawDoc, source string, w *worker) (prepared, bool) {
	if !b.templates.worthIt(w) {
		return prepared{}, false
	}
	start, end, ok := metadataBlock(raw.data)
	if !ok {
		return prepared{}, false
	}
	key := restKey{head: raw.data[:start], tail: raw.data[end:]}
	h := key.hash()
	tpl := w.lookup(key, h)
	if tpl == nil {
		if tpl = b.templates.get(key, h); tpl != nil {
			w.remember(h, tpl)
		}
	}
	shared := tpl != nil
	w.tried++
	if shared {
		w.reused++
	} else {
		tpl = b.newTemplate(slices.Concat(key.head, key.tail))
		if shared = b.templates.put(h, tpl); shared {
			w.remember(h, tpl)
		}
	}
	if !tpl.ok {
		return prepared{}, false
	}
	doc, ok := tpl.document(raw.data[start:end], shared, b.share, &w.slab)
	if !ok {
		return prepared{}, false
	}
	doc.Source, doc.Line = source, raw.line
	w.templated++
	return prepared{doc: doc}, true
}

// newTemplate converts and decodes the rest of a document; a rest that fails anywhere, or is not of
// a kind KeepObject reads, gives a template that is not ok.
func (b *build) newTemplate(rest []byte) *template {
	tree, ok := fastYAMLTree(rest)
	if _, dup := tree["metadata"]; !ok || dup {
		return &template{key: rest}
	}
	hdr := headerOf(tree)
	if hdr == nil || hdr.apiVersion == "" || hdr.kind == "" {
		return &template{key: rest}
	}
	kind := Kind{APIVersion: hdr.apiVersion, Kind: hdr.kind}
	if !b.keep[kind] {
		return &template{key: rest}
	}
	js := appendJSON(nil, tree)
	if mayHoldHugeNumber(js) {
		return &template{key: rest}
	}
	typed, err := decodeTyped(&Document{Kind: kind, JSON: js})
	if err != nil || typed == nil {
		return &template{key: rest}
	}
	if _, isMeta := typed.(metav1.ObjectMetaAccessor); !isMeta {
		return &template{key: rest}
	}
	tpl := &template{key: rest, ok: true, kind: kind, typed: typed}
	tpl.before, tpl.after = splitEntries(tree)
	return tpl
}

// splitEntries writes the JSON of a tree's entries, without braces, in two parts: those whose keys
// sort before "metadata" and those after.
func splitEntries(tree map[string]any) (before, after []byte) {
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		part := &after
		if k < "metadata" {
			part = &before
		}
		if len(*part) > 0 {
			*part = append(*part, ',')
		}
		*part = appendJSONString(*part, k)
		*part = append(*part, ':')
		*part = appendJSON(*part, tree[k])
	}
	return before, after
}

// document is one document made of the template and its metadata block. A shared template's typed
// value is copied (deeply, unless shallow: see Decoder.ShareTemplates); one the cache did not keep
// is used as it is.
func (t *template) document(block []byte, shared, shallow bool, slab *podSlab) (*Document, bool) {
	var meta metav1.ObjectMeta
	var value metaValue
	if !readMeta(block, &meta, &value) {
		return nil, false
	}
	js, metaJSON := t.join(&value)
	// The rest's JSON passed this check when its template was made, and a number cannot span the
	// joins (each part is whole entries), so the metadata's JSON is all that is left to check.
	if mayHoldHugeNumber(metaJSON) {
		return nil, false
	}
	var typed k8sruntime.Object
	switch {
	case shared && shallow:
		typed = withMeta(t.typed, &meta, slab)
	case shared:
		typed = t.typed.DeepCopyObject()
		*typed.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta) = meta
	default:
		typed = t.typed
		*typed.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta) = meta
	}
	// The document and its decoded value in one allocation: one per templated document fewer.
	d := &struct {
		doc Document
		pre predecoded
	}{doc: Document{Kind: t.kind, Name: meta.Name, Namespace: meta.Namespace, JSON: js}, pre: predecoded{obj: typed}}
	d.doc.pre = &d.pre
	return &d.doc, true
}

// withMeta is a new object with obj's top-level fields but meta: nested slices, maps and pointers
// are shared. A Pod, which most templated documents are, is made directly (a tenth of the cost
// through reflection, and its template's metadata is not copied only to be replaced), in slab.
func withMeta(obj k8sruntime.Object, meta *metav1.ObjectMeta, slab *podSlab) k8sruntime.Object {
	if pod, ok := obj.(*corev1.Pod); ok {
		p := slab.next() // zeroed: each field is written once
		p.TypeMeta, p.ObjectMeta, p.Spec, p.Status = pod.TypeMeta, *meta, pod.Spec, pod.Status
		return p
	}
	v := reflect.ValueOf(obj).Elem()
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	out := cp.Interface().(k8sruntime.Object)
	*out.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta) = *meta
	return out
}

// podSlab hands out Pods from arrays of podSlabSize, one per worker: a Pod is about 1 KB, and
// allocating them one by one (each zeroed and set up apart, in fresh memory in a new process) was
// a third of a templated document's cost. The pods of a slab live as long as any of them does,
// which for a Set's pods is as long as the Set.
type podSlab struct{ free []corev1.Pod }

const podSlabSize = 32

func (s *podSlab) next() *corev1.Pod {
	if len(s.free) == 0 {
		s.free = make([]corev1.Pod, podSlabSize)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// metaValue is the JSON of a metadata block's value (the object under "metadata"): its entries as
// quickMeta read them, or, read the general way, the JSON itself.
type metaValue struct {
	quick quickFields
	json  []byte // the general way's
}

func (v *metaValue) jsonLen() int {
	if v.json != nil {
		return len(v.json)
	}
	return v.quick.jsonLen()
}

func (v *metaValue) appendJSON(js []byte) []byte {
	if v.json != nil {
		return append(js, v.json...)
	}
	return v.quick.appendJSON(js)
}

// readMeta converts a metadata block and decodes it strictly into meta, and keeps the JSON of its
// value in value: quickly for the common shape, else through the fast converter's tree and
// sigs.k8s.io/json.
func readMeta(block []byte, meta *metav1.ObjectMeta, value *metaValue) bool {
	if quickMeta(block, meta, &value.quick) {
		value.quick.sort()
		return true
	}
	*meta = metav1.ObjectMeta{}
	metaJSON, tree, ok := fastYAMLToJSON(block)
	if !ok || len(tree) != 1 || headerOf(tree) == nil {
		return false
	}
	var decoded metadataOnly
	if strict, err := sigsjson.UnmarshalStrict(metaJSON, &decoded); err != nil || len(strict) > 0 {
		return false
	}
	*meta, value.json = decoded.Metadata, metaJSON[len(`{"metadata":`):len(metaJSON)-1]
	return true
}

// join is the document's JSON, the template's entries around "metadata" and its value, written
// into one buffer of the exact size, and the part of it that is the value.
func (t *template) join(meta *metaValue) (js, metaJSON []byte) {
	js = make([]byte, 0, len(t.before)+len(t.after)+meta.jsonLen()+len(`{,"metadata":,}`))
	js = append(js, '{')
	if len(t.before) > 0 {
		js = append(append(js, t.before...), ',')
	}
	js = append(js, `"metadata":`...)
	start := len(js)
	js = meta.appendJSON(js)
	end := len(js)
	if len(t.after) > 0 {
		js = append(append(js, ','), t.after...)
	}
	js = append(js, '}')
	return js, js[start:end]
}

// metadataBlock finds the top-level "metadata:" entry of a block-style document whose mapping
// starts at indentation 0: from its line to the next line with content at indentation 0 that is
// not a sequence item (the block's own value may be a sequence at the key's indentation). Lines
// with content are those contentLines keeps. It reports false for any other document, which then
// takes the full path.
func metadataBlock(data []byte) (start, end int, ok bool) {
	start, seen := -1, false
	for off := 0; off < len(data); {
		next := off + lineLen(data[off:])
		text, indent := lineContent(data[off:next])
		switch {
		case len(text) == 0:
		case !seen && indent > 0:
			return 0, 0, false // the mapping is indented
		case indent > 0:
		case start >= 0 && !isSeqBytes(text):
			return start, off, true
		case start < 0 && string(text) == "metadata:":
			start = off
		}
		seen = seen || len(text) > 0
		off = next
	}
	return start, len(data), start >= 0
}

// lineLen is the length of the first line of data, its newline included.
func lineLen(data []byte) int {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1
	}
	return len(data)
}

// lineContent is a line's text as contentLines keeps it (spaces around cut; empty for a blank or
// comment line) and its indentation.
func lineContent(line []byte) ([]byte, int) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	text := bytes.TrimRight(line[indent:], " ")
	if len(text) == 0 || text[0] == '#' {
		return nil, indent
	}
	return text, indent
}

// isSeqBytes is isSeqLine on bytes.
func isSeqBytes(text []byte) bool {
	return len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}
