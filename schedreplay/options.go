package schedreplay

import (
	"cmp"
	"math/rand/v2"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Options vary a replay the ways kube-scheduler's own runs vary, so that a caller can look at
// several of its possible outcomes rather than one.
type Options struct {
	// Rand, when set, breaks ties between equal best scores at random, as kube-scheduler does;
	// nil takes the first node of a tie.
	Rand *rand.Rand
	// QueueJitter, with Rand, moves each pod up to this many places in the queue: the order a
	// caller knows (creation) is kube-scheduler's only roughly (its queue orders by each pod's
	// last failed attempt, and a pod retried once more falls behind).
	QueueJitter int
}

// jitter returns the queue with each pod moved by up to QueueJitter places (the queue itself
// unchanged), or the queue as it is.
func (o Options) jitter(queue []*corev1.Pod) []*corev1.Pod {
	if o.Rand == nil || o.QueueJitter <= 0 || len(queue) < 2 {
		return queue
	}
	type slot struct {
		pod *corev1.Pod
		at  float64
	}
	slots := make([]slot, len(queue))
	for i, pod := range queue {
		slots[i] = slot{pod: pod, at: float64(i) + o.Rand.Float64()*float64(o.QueueJitter)}
	}
	slices.SortStableFunc(slots, func(a, b slot) int { return cmp.Compare(a.at, b.at) })
	out := make([]*corev1.Pod, len(queue))
	for i, s := range slots {
		out[i] = s.pod
	}
	return out
}
