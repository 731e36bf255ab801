package manifest

import (
	"errors"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pool is a valid NodePool with a placeholder for extra template spec lines.
const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
`

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		sentinel error
		want     string // exact message
	}{{
		name:     "unknown field",
		input:    strings.Replace(pool, "requirements:", "requirement:", 1),
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) NodePool "general": cannot decode: unknown field "spec.template.spec.requirement"`,
	}, {
		name:     "unknown field in metadata",
		input:    strings.Replace(pool, "  name: general", "  name: general\n  labelz: {a: b}", 1),
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) NodePool "general": cannot decode: unknown field "metadata.labelz"`,
	}, {
		name:     "duplicate field",
		input:    `{"apiVersion":"karpenter.azure.com/v1beta1","kind":"AKSNodeClass","metadata":{"name":"c"},"spec":{"maxPods":10,"maxPods":20}}`,
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) AKSNodeClass "c": cannot decode: duplicate field "spec.maxPods"`,
	}, {
		name:     "duplicate YAML key",
		input:    "apiVersion: v1\nkind: Pod\nkind: Pod\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1): cannot decode: yaml: unmarshal errors:` + "\n" + `  line 3: key "kind" already set in map`,
	}, {
		name:     "wrong type",
		input:    strings.Replace(pool, "values: [amd64]", "values: [1]", 1),
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) NodePool "general": cannot decode: spec.template.spec.requirements[0].values[0]: want string, got 1`,
	}, {
		name:     "bad duration",
		input:    pool + "      expireAfter: 1.5h\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) NodePool "general": cannot decode: spec.template.spec.expireAfter: cannot unmarshal "1.5h" (want whole s, m or h units such as 30s, 10m, 1h30m, or "Never") into Go value of type api.NillableDuration, got "1.5h"`,
	}, {
		name:     "validation error",
		input:    pool + "        - {key: karpenter.sh/capacity-type, operator: In, values: [foo]}\n",
		sentinel: api.ErrInvalid,
		want:     `test.yaml document 1 (line 1) NodePool "general": spec.template.spec.requirements[1].values[0]: karpenter.sh/capacity-type can only be on-demand, reserved, spot, got "foo"`,
	}, {
		// The parser's line (16: it reports flow errors where the flow context is) is shifted from
		// the document to the file.
		name:     "bad YAML, line counted in the file",
		input:    "# header\n---\n" + pool + "---\n\napiVersion: v1\nkind: Pod\nmetadata: {name: [}\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 2 (line 15): cannot decode: yaml: line 16: did not find expected node content`,
	}, {
		name:     "not an object",
		input:    "just a string\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1): cannot decode: document is not an object; want a Kubernetes object with apiVersion and kind`,
	}, {
		name:     "no kind",
		input:    "apiVersion: v1\nmetadata: {name: x}\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1): cannot decode: apiVersion and kind are required`,
	}, {
		name:     "kind of the wrong type",
		input:    "apiVersion: v1\nkind: [Pod]\n",
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1): cannot decode: kind: cannot decode array as string`,
	}, {
		name:     "duplicate names",
		input:    pool + "---\n" + pool,
		sentinel: ErrDecode,
		want:     `test.yaml document 2 (line 12) NodePool "general": cannot decode: NodePool "general" is defined twice; first at test.yaml document 1 (line 1)`,
	}, {
		name:     "duplicate names in a List",
		input:    `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}`,
		sentinel: ErrDecode,
		want:     `test.yaml document 1 (line 1) item 2 Pod "p": cannot decode: Pod "p" is defined twice; first at test.yaml document 1 (line 1) item 1`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := decodeString(t, tt.input)
			assert.Nil(t, set)
			require.ErrorIs(t, err, tt.sentinel)
			assert.EqualError(t, err, tt.want)
			var de *DocumentError
			assert.True(t, errors.As(err, &de))
		})
	}
}

func TestDecodeReportsEveryField(t *testing.T) {
	input := strings.Replace(strings.Replace(pool, "requirements:", "requirement:", 1), "  name: general", "  name: general\n  nam: x", 1)
	_, err := decodeString(t, input)
	assert.EqualError(t, err, `test.yaml document 1 (line 1) NodePool "general": cannot decode: unknown field "metadata.nam"; unknown field "spec.template.spec.requirement"`)
}

func TestDecodeReportsEveryDocument(t *testing.T) {
	input := strings.Replace(pool, "requirements:", "requirement:", 1) + "---\n" +
		"apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\nspec: {osDiskSizeGB: 10, maxPods: 500}\n"
	_, err := decodeString(t, input)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrDecode)
	assert.ErrorIs(t, err, api.ErrInvalid)
	assert.Equal(t, `test.yaml document 1 (line 1) NodePool "general": cannot decode: unknown field "spec.template.spec.requirement"`+"\n"+
		`test.yaml document 2 (line 12) AKSNodeClass "default": spec.osDiskSizeGB: must be between 30 and 2048, got 10; spec.maxPods: must be between 10 and 250, got 500`,
		err.Error())
}

func TestDecodeNilReader(t *testing.T) {
	_, err := Decode(nil, "stdin")
	assert.ErrorIs(t, err, ErrDecode)
	assert.EqualError(t, err, "stdin: cannot decode: nil reader")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestDecodeReadError(t *testing.T) {
	_, err := Decode(failingReader{}, "x.yaml")
	assert.ErrorIs(t, err, ErrDecode)
	assert.EqualError(t, err, "x.yaml: cannot decode: disk on fire")
}

// resource.ParseQuantity takes time that grows with the exponent (1e4222222200 never returns; found by
// FuzzObjectDecode) and with the digits, so such numbers are refused before it sees them, wherever a
// quantity may be; labels and annotations may still hold such text.
func TestDecodeRefusesHugeNumbers(t *testing.T) {
	pod := func(requests, labels string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {" + labels + "}}\nspec:\n  containers:\n    - name: app\n      resources: {requests: {" + requests + "}}\n"
	}
	for _, tt := range []struct{ requests, path, value string }{
		{`cpu: "1e4222222200"`, "spec.containers[0].resources.requests.cpu", `"1e4222222200"`},
		{`cpu: "9e-4222222"`, "spec.containers[0].resources.requests.cpu", `"9e-4222222"`},
		{`memory: "` + strings.Repeat("9", 70) + `Ki"`, "spec.containers[0].resources.requests.memory", strings.Repeat("9", 70) + "Ki"},
	} {
		t.Run(tt.value, func(t *testing.T) {
			_, err := decodeString(t, pod(tt.requests, ""))
			require.ErrorIs(t, err, ErrDecode)
			assert.ErrorContains(t, err, "test.yaml document 1 (line 1)")
			assert.ErrorContains(t, err, tt.path)
			assert.ErrorContains(t, err, tt.value)
		})
	}
	set, err := decodeString(t, pod("cpu: 1", `build: "1e4222222200"`))
	require.NoError(t, err)
	assert.Len(t, set.Objects, 1)
}
