package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/api"
)

// DefaultMaxBytes is the largest source Decode and DecodeFiles read when Decoder.MaxBytes is zero:
// 64 MiB, far beyond any manifest set napkit can plan (its YAML is about 1 KB per object), so that a
// wrong file or an endless stream fails fast instead of exhausting memory.
const DefaultMaxBytes = 64 << 20

// Stdin is the path DecodeFiles reads standard input for, as kubectl's -f - does.
const Stdin = "-"

// Decoder reads manifests with a table of kinds. The zero Decoder uses DefaultKinds.
type Decoder struct {
	kinds map[Kind]DecodeFunc
	// MaxBytes caps each source (file or stream); 0 means DefaultMaxBytes. A larger source is
	// ErrTooLarge.
	MaxBytes int64
	// Stdin is what DecodeFiles reads for the path "-"; nil means os.Stdin.
	Stdin io.Reader
	// ShareTemplates lets the objects of documents that differ only in their top-level metadata
	// block (a workload's pods; see Object.Typed) share the decoded value below their top-level
	// fields (a Pod's spec.containers, spec.affinity, ...) instead of each getting a deep copy of
	// it: each object still has its own ObjectMeta and its own top-level structs, so setting
	// pod.Spec.NodeName or pod.Namespace is safe, but writing into a shared slice, map or pointer
	// (pod.Spec.Containers[0].Image) changes every such object. Set it when the Set's objects are
	// only read, as snapshot.Read with Owned and the provisioner do (snapshot's
	// TestSharedPodSpecsStayUnchanged checks that they write to none), to save a deep copy per
	// document (about 2 µs and 2 KB per Pod). Object.Decode copies either way.
	ShareTemplates bool
	// NodeClassRead, when set, is called with each AKSNodeClass as soon as it is read, defaulted
	// and valid, while the documents after it are still being read, so that the caller can start
	// work that depends on the node class alone (napkit plan builds its catalogue meanwhile). It
	// runs on the decoding goroutine and must not modify the node class. The Set is what counts: a
	// node class passed here may still be refused later (defined twice), and then no Set is returned.
	NodeClassRead func(*api.AKSNodeClass)
	// noTemplates sends every document down the full path, for the tests that compare both.
	noTemplates bool
}

// NewDecoder returns a Decoder for the given kinds; nil means DefaultKinds.
func NewDecoder(kinds map[Kind]DecodeFunc) *Decoder { return &Decoder{kinds: kinds} }

// Decode reads one multi-document YAML or JSON stream with DefaultKinds. source names the input in
// errors and notes.
func Decode(r io.Reader, source string) (*Set, error) { return (&Decoder{}).Decode(r, source) }

// DecodeFiles reads files, and the *.yaml, *.yml and *.json files of directories in name order,
// into one Set with DefaultKinds; "-" reads standard input. Names must be unique across all of them.
func DecodeFiles(paths ...string) (*Set, error) { return (&Decoder{}).DecodeFiles(paths...) }

// Decode reads one stream. Every document is decoded, defaulted and validated, and all errors are
// returned together; on error the Set is nil. A stream without documents is ErrNoObjects.
func (d *Decoder) Decode(r io.Reader, source string) (*Set, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: %w: nil reader", source, ErrDecode)
	}
	data, err := d.read(r, source)
	if err != nil {
		return nil, err
	}
	b := d.newBuild()
	if b.source(data, source) == 0 {
		return nil, noObjects(source, nil)
	}
	return b.finish([]string{source})
}

// DecodeFiles reads files and directories into one Set. A file named on its own (or "-") must hold
// at least one document and a directory at least one manifest file; both are ErrNoObjects otherwise,
// because an empty input planned as an empty cluster looks like an answer.
func (d *Decoder) DecodeFiles(paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no files given", ErrNoObjects)
	}
	b := d.newBuild()
	for _, p := range paths {
		if err := d.decodePath(b, p); err != nil {
			return nil, err
		}
	}
	return b.finish(paths)
}

// decodePath reads one path given by the user: a file, a directory or "-".
func (d *Decoder) decodePath(b *build, path string) error {
	if path == Stdin {
		return d.decodeNamed(b, d.stdin(), "<stdin>")
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if !info.IsDir() {
		return d.decodeFile(b, path, true)
	}
	files, err := manifestFiles(path)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: %w: the directory has no *.yaml, *.yml or *.json files", path, ErrNoObjects)
	}
	for _, f := range files {
		if err := d.decodeFile(b, f, false); err != nil {
			return err
		}
	}
	return nil
}

func (d *Decoder) decodeFile(b *build, path string, mustHaveContent bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", path, ErrDecode, err)
	}
	defer f.Close()
	if !mustHaveContent {
		data, err := d.read(f, path)
		if err != nil {
			return err
		}
		b.source(data, path)
		return nil
	}
	return d.decodeNamed(b, f, path)
}

// decodeNamed reads a source the user named, which must hold a document.
func (d *Decoder) decodeNamed(b *build, r io.Reader, source string) error {
	data, err := d.read(r, source)
	if err != nil {
		return err
	}
	if b.source(data, source) == 0 {
		return noObjects(source, nil)
	}
	return nil
}

func (d *Decoder) stdin() io.Reader {
	if d.Stdin != nil {
		return d.Stdin
	}
	return os.Stdin
}

// read reads a whole source, refusing one larger than MaxBytes before holding more than that.
func (d *Decoder) read(r io.Reader, source string) ([]byte, error) {
	limit := d.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	// A regular file's size is known: reading into a buffer of that size saves io.ReadAll's
	// regrowing and copying (a 2 MB input was read into 4 MB of buffers).
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() <= limit {
			buf.Grow(int(info.Size()) + bytes.MinRead) // ReadFrom wants MinRead free to stop
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", source, ErrDecode, err)
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %d bytes (Decoder.MaxBytes); split the manifests or raise the limit", source, ErrTooLarge, limit)
	}
	return data, nil
}

// manifestFiles lists a directory's manifest files in name order (not recursively).
func manifestFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && isManifestFile(e.Name()) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

func isManifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// header is the part of every object that identifies it.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// readHeader identifies a document, or says why it is not a Kubernetes object.
func readHeader(doc *Document) error {
	if trimmed := bytes.TrimSpace(doc.JSON); len(trimmed) == 0 || trimmed[0] != '{' {
		return decodeErr("document is not an object; want a Kubernetes object with apiVersion and kind")
	}
	var h header
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(doc.JSON, &h); err != nil {
		return typeError(err)
	}
	doc.Kind = Kind{APIVersion: h.APIVersion, Kind: h.Kind}
	doc.Name, doc.Namespace = h.Metadata.Name, h.Metadata.Namespace
	if h.APIVersion == "" || h.Kind == "" {
		return decodeErr("apiVersion and kind are required")
	}
	return nil
}

// toJSON converts one YAML document, rejecting duplicate keys; JSON documents pass through. An empty
// or comment-only document gives nil. A document the fast converter takes also gives its header.
func toJSON(raw rawDoc) ([]byte, *fastHeader, error) {
	if raw.json {
		return raw.data, nil, nil
	}
	if out, tree, ok := fastYAMLToJSON(raw.data); ok {
		return out, headerOf(tree), nil
	}
	out, err := yaml.YAMLToJSONStrict(raw.data)
	if err != nil {
		return nil, nil, decodeErr("%s", shiftYAMLLines(err.Error(), raw.first))
	}
	if string(out) == "null" {
		return nil, nil, nil
	}
	return out, nil, nil
}

// unwrapList returns the items of a v1 List document.
func unwrapList(doc *Document) ([]json.RawMessage, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(doc.JSON, &list); err != nil {
		return nil, typeError(err)
	}
	return list.Items, nil
}
