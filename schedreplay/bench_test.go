package schedreplay

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkReplay replays a batch onto the nodes planned for it: 1,000 pods on 60 nodes and
// 10,000 pods on 900 (the scale suite's sizes, docs/benchmarks.md).
func BenchmarkReplay(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{60, 1000}, {900, 10000}} {
		b.Run(fmt.Sprintf("pods=%d/nodes=%d", size.pods, size.nodes), func(b *testing.B) {
			nodes, queue := randomCluster(rand.New(rand.NewPCG(1, 7)), size.nodes, size.pods)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Replay(nodes, queue); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNominationsFor picks the nominations for a 1,000-pod batch on 60 nodes planned first
// fit: the plain replay and eight varied ones a round, as the controller's NominatePredicted asks.
func BenchmarkNominationsFor(b *testing.B) {
	nodes, queue := randomCluster(rand.New(rand.NewPCG(1, 7)), 60, 1000)
	planned := firstFit(nodes, queue)
	opts := NominationOptions{MaxRounds: 8, Samples: 8, QueueJitter: 100, Seed: 7}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NominationsFor(nodes, queue, planned, opts); err != nil {
			b.Fatal(err)
		}
	}
}
