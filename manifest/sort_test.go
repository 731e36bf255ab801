package manifest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSortObjects: sortObjects gives compareObjects' order, below and above the size at which it
// sorts two halves side by side, from sorted, reversed and shuffled input.
func TestSortObjects(t *testing.T) {
	kinds := []Kind{{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"v1", "Node"}}
	for _, n := range []int{0, 1, 7, parallelSortMin - 1, parallelSortMin, 3*parallelSortMin + 1} {
		objs := make([]Object, n)
		for i := range objs {
			objs[i] = Object{Kind: kinds[i%3], Namespace: []string{"", "default", "shop"}[i%5%3], Name: fmt.Sprintf("o-%d", i)}
		}
		want := slices.Clone(objs)
		slices.SortFunc(want, compareObjects)
		shuffled := slices.Clone(objs)
		rand.New(rand.NewPCG(1, uint64(n))).Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		reversed := slices.Clone(want)
		slices.Reverse(reversed)
		for name, in := range map[string][]Object{"input order": objs, "shuffled": shuffled, "reversed": reversed, "sorted": want} {
			t.Run(fmt.Sprint(n, " ", name), func(t *testing.T) {
				assert.Equal(t, want, sortObjects(slices.Clone(in)))
			})
		}
	}
}
