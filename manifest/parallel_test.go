package manifest

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeParallelSameAsSequential: the parallel stage must not change what Decode returns. A
// stream mixing fast-path Pods, Pods only sigs.k8s.io/yaml reads (flow style), bad values, unknown
// fields, YAML errors and a duplicate name gives the same Set or the same errors, in document order,
// with one worker and with eight.
func TestDecodeParallelSameAsSequential(t *testing.T) {
	var good, bad strings.Builder
	good.WriteString(pool)
	bad.WriteString(pool)
	for i := range 300 {
		fmt.Fprintf(&good, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: %dm\n", i, 100+i)
		switch i % 50 {
		case 7:
			fmt.Fprintf(&bad, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: abc\n", i)
		case 19:
			fmt.Fprintf(&bad, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\nspec:\n  containerz: []\n", i)
		case 23:
			bad.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: [}\n")
		case 31:
			bad.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-0\n")
		default:
			fmt.Fprintf(&bad, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p-%d}\nspec: {containers: [{name: c}]}\n", i)
		}
	}
	for _, input := range []string{good.String(), bad.String()} {
		set1, err1 := decodeWith(t, 1, input)
		set8, err8 := decodeWith(t, 8, input)
		assert.Equal(t, fmt.Sprint(err1), fmt.Sprint(err8))
		if err1 != nil {
			msg := err1.Error()
			assert.Less(t, strings.Index(msg, "document 9 "), strings.Index(msg, "document 21 "), "errors in document order")
			continue
		}
		require.Len(t, set8.Objects, 300)
		for i := range set1.Objects {
			assert.Equal(t, string(set1.Objects[i].JSON), string(set8.Objects[i].JSON))
			assert.Equal(t, set1.Objects[i].Position, set8.Objects[i].Position)
		}
	}
}

// TestDecodeListParallelSameAsSequential: the items of a v1 List, decoded side by side, give the
// same Set, or the same errors in item order, with one worker and with eight.
func TestDecodeListParallelSameAsSequential(t *testing.T) {
	item := func(i int, cpu string) string {
		return fmt.Sprintf("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p-%d\n  spec:\n    containers:\n    - name: c\n      resources:\n        requests:\n          cpu: %s\n", i, cpu)
	}
	var good, bad strings.Builder
	good.WriteString(pool + "---\napiVersion: v1\nkind: List\nitems:\n")
	bad.WriteString(pool + "---\napiVersion: v1\nkind: List\nitems:\n")
	for i := range 300 {
		good.WriteString(item(i, fmt.Sprintf("%dm", 100+i)))
		switch i % 50 {
		case 7:
			bad.WriteString(item(i, "abc"))
		case 19:
			bad.WriteString("- apiVersion: v1\n  metadata:\n    name: no-kind\n")
		case 31:
			bad.WriteString(item(0, "1"))
		default:
			bad.WriteString(item(i, "1"))
		}
	}
	for _, input := range []string{good.String(), bad.String()} {
		set1, err1 := decodeWith(t, 1, input)
		set8, err8 := decodeWith(t, 8, input)
		assert.Equal(t, fmt.Sprint(err1), fmt.Sprint(err8))
		if err1 != nil {
			msg := err1.Error()
			assert.Less(t, strings.Index(msg, "item 8:"), strings.Index(msg, "item 20:"), "errors in item order")
			assert.Contains(t, msg, `item 32 Pod "p-0": cannot decode: Pod "p-0" is defined twice`)
			continue
		}
		require.Len(t, set8.Objects, 300)
		assert.Equal(t, set1.Objects, set8.Objects)
	}
}

func decodeWith(t *testing.T, procs int, input string) (*Set, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return Decode(bytes.NewReader([]byte(input)), "pods.yaml")
}

// TestChunkBounds: chunks cover every document once, in order; the first ones double from one
// document up to the size the input gets (so that the walk starts at once), the rest have that size.
func TestChunkBounds(t *testing.T) {
	for _, tc := range []struct {
		n, workers int
		want       []int
	}{
		{0, 2, []int{0}},
		{1, 2, []int{0, 1}},
		{5, 2, []int{0, 1, 2, 3, 4, 5}},
		{100, 2, []int{0, 1, 3, 7, 13, 19, 25, 31, 37, 43, 49, 55, 61, 67, 73, 79, 85, 91, 97, 100}},
		{300, 1, []int{0, 1, 3, 7, 15, 31, 63, 100, 137, 174, 211, 248, 285, 300}},
	} {
		got := chunkBounds(tc.n, tc.workers)
		if len(tc.want) > 0 {
			assert.Equal(t, tc.want, got, "n=%d workers=%d", tc.n, tc.workers)
		}
		assert.Equal(t, 0, got[0])
		assert.Equal(t, tc.n, got[len(got)-1])
		size := max(1, min(64, tc.n/(8*tc.workers)))
		for c := 1; c < len(got); c++ {
			chunk := got[c] - got[c-1]
			assert.Positive(t, chunk)
			assert.LessOrEqual(t, chunk, min(size, 1<<(c-1)))
		}
	}
	b := chunkBounds(10000, 2)
	assert.Equal(t, []int{0, 1, 3, 7, 15, 31, 63, 127, 191}, b[:9], "10,000 documents: chunks of 1, 2, 4, ... 64")
}
