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
)

// Decoder reads manifests with a table of kinds. The zero Decoder uses DefaultKinds.
type Decoder struct {
	kinds map[Kind]DecodeFunc
}

// NewDecoder returns a Decoder for the given kinds; nil means DefaultKinds.
func NewDecoder(kinds map[Kind]DecodeFunc) *Decoder { return &Decoder{kinds: kinds} }

// Decode reads one multi-document YAML or JSON stream with DefaultKinds. source names the input in
// errors and notes.
func Decode(r io.Reader, source string) (*Set, error) { return (&Decoder{}).Decode(r, source) }

// DecodeFiles reads files, and the *.yaml, *.yml and *.json files of directories in name order,
// into one Set with DefaultKinds. Names must be unique across all of them.
func DecodeFiles(paths ...string) (*Set, error) { return (&Decoder{}).DecodeFiles(paths...) }

// Decode reads one stream. Every document is decoded, defaulted and validated, and all errors are
// returned together; on error the Set is nil.
func (d *Decoder) Decode(r io.Reader, source string) (*Set, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: %w: nil reader", source, ErrDecode)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", source, ErrDecode, err)
	}
	b := d.newBuild()
	b.source(data, source)
	return b.finish()
}

// DecodeFiles reads files and directories into one Set.
func (d *Decoder) DecodeFiles(paths ...string) (*Set, error) {
	files, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	b := d.newBuild()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", f, ErrDecode, err)
		}
		b.source(data, f)
	}
	return b.finish()
}

// expandPaths replaces each directory by its manifest files, in name order (not recursively).
func expandPaths(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDecode, err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p) // sorted by name
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDecode, err)
		}
		for _, e := range entries {
			if !e.IsDir() && isManifestFile(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
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
// or comment-only document gives nil.
func toJSON(raw rawDoc) ([]byte, error) {
	if raw.json {
		return raw.data, nil
	}
	out, err := yaml.YAMLToJSONStrict(raw.data)
	if err != nil {
		return nil, decodeErr("%s", shiftYAMLLines(err.Error(), raw.first))
	}
	if string(out) == "null" {
		return nil, nil
	}
	return out, nil
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
