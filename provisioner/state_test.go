package provisioner

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runPlan is a run's plan as JSON, without the wall-clock field.
func runPlan(t *testing.T, e *engine) []byte {
	t.Helper()
	plan := e.render(e.run())
	plan.Stats.SolveMillis = 0
	out, err := json.Marshal(plan)
	require.NoError(t, err)
	return out
}

// TestRunsShareNoState runs the baseline over a problem the main strategy has already run on and
// over a freshly compiled one: the plans are identical, so runs share the compiled problem and
// nothing of each other's state. The evacuation inputs include a NodePool limit the main run's
// claims use up differently from the baseline's: before the launch lists moved into the state,
// the baseline reused lists computed under the main run's usage (one claim lost a type the
// baseline's own usage allows).
func TestRunsShareNoState(t *testing.T) {
	inputs := map[string]Input{}
	for i := range 60 {
		inputs[fmt.Sprint("property-", i)] = gen{rand.New(rand.NewPCG(uint64(i), 7))}.input()
	}
	g := gen{rand.New(rand.NewPCG(76, 11))}
	cluster := g.cluster()
	sim, err := NewSimulator(cluster)
	require.NoError(t, err)
	for j := range 6 {
		req := g.question(cluster)
		in, err := sim.evacuationInput(req)
		if err != nil {
			continue
		}
		if _, err := Solve(in); err == nil { // without new NodeClaims, in-flight claims lose their pools
			inputs[fmt.Sprint("evacuation-76-", j)] = in
		}
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			opts := in.Options.withDefaults()
			shared, err := compile(&in, opts, false)
			require.NoError(t, err)
			runPlan(t, shared.newEngine(false))
			fresh, err := compile(&in, opts, false)
			require.NoError(t, err)
			require.JSONEq(t, string(runPlan(t, fresh.newEngine(true))), string(runPlan(t, shared.newEngine(true))))
		})
	}
}

// problemPrint is what a run could change by mistake in a problem: the fixed bins, the start
// counts and usage, the classes as compiled, the scope. Memo caches are left out: they only grow.
func problemPrint(p *problem) string {
	var b strings.Builder
	for _, x := range p.fixed {
		fmt.Fprintf(&b, "bin %s %v %v %v %v %v %v %d %d\n", x.name, x.used, x.cap, x.ports, x.host, x.closed, x.dead, len(x.classes), len(x.pods))
	}
	fmt.Fprintf(&b, "counts %v usage %v forced %v pns %v\n", p.startCounts, p.startUsage, p.allForced, p.pns)
	for _, c := range p.allClasses {
		fmt.Fprintf(&b, "class %d %s %p %v %v %v %v", c.id, podNamesOf(c.pods), c.variants, c.hMatch, c.zMatch, c.inverse, c.free)
		for _, v := range c.variants {
			fmt.Fprintf(&b, " %v", *v)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%p %p %p\n", p.allPools, p.allClasses, p.allPods)
	return b.String()
}

// TestRunsLeaveTheProblemAlone runs Solve's two runs over a problem, and a Simulator's questions
// over its own, and checks that the problem reads the same afterwards.
func TestRunsLeaveTheProblemAlone(t *testing.T) {
	for i := range 40 {
		in := gen{rand.New(rand.NewPCG(uint64(i), 7))}.input()
		p, err := compile(&in, in.Options.withDefaults(), false)
		if err != nil {
			continue
		}
		before := problemPrint(p)
		main := p.newEngine(false)
		main.render(main.run())
		p.newEngine(true).run()
		require.Equal(t, before, problemPrint(p), "Solve input %d", i)
	}
	for i := range 20 {
		g := gen{rand.New(rand.NewPCG(uint64(i), 11))}
		cluster := g.cluster()
		sim, err := NewSimulator(cluster)
		require.NoError(t, err)
		before := problemPrint(sim.eng.problem)
		for range 4 {
			req := g.question(cluster)
			_, _ = sim.Evacuate(req)
			req.Quick = true
			_, _ = sim.Evacuate(req)
		}
		require.Equal(t, before, problemPrint(sim.eng.problem), "cluster %d", i)
	}
}

// statePrint is what a Simulator question must give back: the bins with their room, ports, host
// counts and pods, the topology counts, the pools' usage, the placements and eligible domains.
func statePrint(s *state) string {
	var b strings.Builder
	for _, x := range s.bins {
		fmt.Fprintf(&b, "bin %s %v %v %v %v %v %v %d %d\n", x.name, x.used, x.cap, x.ports, x.host, x.closed, x.dead, len(x.classes), len(x.pods))
	}
	for _, c := range s.counts { // grow pads with zeros: a longer slice of zeros is the same count
		fmt.Fprintf(&b, "count %v %v %d\n", trimZeros(c.match), trimZeros(c.owner), c.total)
	}
	fmt.Fprintf(&b, "usage %v eligible %v touched %d\n", s.poolUsed, s.eligible, len(s.touched))
	for i, pl := range s.placed {
		if pl.bin != nil {
			fmt.Fprintf(&b, "placed %d on %s\n", i, pl.bin.name)
		}
	}
	return b.String()
}

// TestQuestionsLeaveTheStateAsFound asks a Simulator questions (full and quick, with and without new
// NodeClaims) and checks that its state reads as before each time: undoing a question costs what
// the question changed, so this is what keeps the next answer independent of the last.
func TestQuestionsLeaveTheStateAsFound(t *testing.T) {
	for i := range 30 {
		g := gen{rand.New(rand.NewPCG(uint64(i), 11))}
		cluster := g.cluster()
		sim, err := NewSimulator(cluster)
		require.NoError(t, err)
		before := statePrint(sim.eng.state)
		for j := range 4 {
			req := g.question(cluster)
			req.NotDestinations = nil // closing them outlives the question by design
			for _, quick := range []bool{false, true} {
				req.Quick = quick
				_, _ = sim.Evacuate(req)
				require.Equal(t, before, statePrint(sim.eng.state), "cluster %d question %d quick %v", i, j, quick)
			}
		}
	}
}

func trimZeros(v []int32) []int32 {
	for len(v) > 0 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	return v
}
