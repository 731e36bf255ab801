package schedreplay

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestReplayWithTies: of two equal empty nodes Replay takes the first; ReplayWith with a Rand
// takes either, each about half the time (kube-scheduler's reservoir sampling), and the same seed
// gives the same choice.
func TestReplayWithTies(t *testing.T) {
	t.Parallel()
	nodes := []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")}
	queue := []*corev1.Pod{pod("p", "1", "1Gi")}
	plain, err := Replay(nodes, queue)
	require.NoError(t, err)
	assert.Equal(t, "a", plain.Placed["default/p"])

	rng := rand.New(rand.NewPCG(3, 5))
	counts := map[string]int{}
	for range 400 {
		res, err := ReplayWith(nodes, queue, Options{Rand: rng})
		require.NoError(t, err)
		counts[res.Placed["default/p"]]++
	}
	assert.InDelta(t, 200, counts["a"], 50)
	assert.InDelta(t, 200, counts["b"], 50)

	first, err := ReplayWith(nodes, queue, Options{Rand: rand.New(rand.NewPCG(9, 9))})
	require.NoError(t, err)
	again, err := ReplayWith(nodes, queue, Options{Rand: rand.New(rand.NewPCG(9, 9))})
	require.NoError(t, err)
	assert.Equal(t, first, again)
}

// TestReplayWithBetterScoreWins: the random draw is among equal best scores only.
func TestReplayWithBetterScoreWins(t *testing.T) {
	t.Parallel()
	nodes := []Node{withPods(node("busy", "4", "16Gi", ""), pod("x", "2", "8Gi")), node("idle", "4", "16Gi", "")}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		res, err := ReplayWith(nodes, []*corev1.Pod{pod("p", "1", "1Gi")}, Options{Rand: rng})
		require.NoError(t, err)
		require.Equal(t, "idle", res.Placed["default/p"])
	}
}

// TestQueueJitter: the jittered queue is a permutation of the queue in which no pod moved more
// than QueueJitter places, the queue itself untouched; without a Rand or a jitter it is the queue.
func TestQueueJitter(t *testing.T) {
	t.Parallel()
	queue := replicas("q", 200, "100m", "100Mi")
	orig := append([]*corev1.Pod(nil), queue...)
	const jitter = 10
	out := Options{Rand: rand.New(rand.NewPCG(4, 4)), QueueJitter: jitter}.jitter(queue)
	require.Len(t, out, len(queue))
	assert.Equal(t, orig, queue, "the caller's queue is not reordered")
	at := map[*corev1.Pod]int{}
	for i, p := range queue {
		at[p] = i
	}
	moved := 0
	for i, p := range out {
		from, ok := at[p]
		require.True(t, ok)
		delete(at, p)
		assert.LessOrEqual(t, max(i-from, from-i), jitter, p.Name)
		if i != from {
			moved++
		}
	}
	assert.Empty(t, at, "every pod once")
	assert.Positive(t, moved)
	assert.Equal(t, queue, Options{QueueJitter: jitter}.jitter(queue))
	assert.Equal(t, queue, Options{Rand: rand.New(rand.NewPCG(4, 4))}.jitter(queue))
}
