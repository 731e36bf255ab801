package provisioner

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// TestCompile checks what compile makes of small inputs: classes, pool order, the fixed bins and
// the start the problem keeps for every run (room bound pods take, limit usage, topology counts).
func TestCompile(t *testing.T) {
	heavy := phasePool("heavy", m4)
	heavy.NodePool.Spec.Weight = ptrTo[int32](50)
	spread := withSpread(api.LabelZone, 1, corev1.DoNotSchedule, selector("app", "web"))
	cases := []struct {
		name  string
		in    Input
		check func(t *testing.T, p *problem)
	}{
		{"identical pods share a class, queued largest first",
			Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi"), pod("b", "1", "1Gi"), pod("big", "2", "1Gi"), pod("c", "1", "1Gi")},
				NodePools: []NodePoolInput{phasePool("p", m4)}},
			func(t *testing.T, p *problem) {
				require.Len(t, p.allClasses, 2)
				assert.Equal(t, []string{"big"}, podNamesOf(p.allClasses[0].pods))
				assert.Equal(t, []string{"a", "b", "c"}, podNamesOf(p.allClasses[1].pods))
				assert.Len(t, p.allPods, 4)
			}},
		{"pools in weight order",
			Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi")}, NodePools: []NodePoolInput{phasePool("light", m4), heavy}},
			func(t *testing.T, p *problem) {
				assert.Equal(t, []string{"heavy", "light"}, []string{p.allPools[0].name, p.allPools[1].name})
				assert.Equal(t, []int{0, 1}, []int{p.allPools[0].idx, p.allPools[1].idx})
			}},
		{"a node is a fixed bin, its room net of its bound pods",
			Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi")}, NodePools: []NodePoolInput{phasePool("p", m4)},
				Nodes: []ExistingNode{node("n1", "test-zone-1", "4", "16Gi", pod("x", "1500m", "1Gi"), pod("y", "500m", "1Gi"))}},
			func(t *testing.T, p *problem) {
				require.Len(t, p.fixed, 1)
				assert.Equal(t, 1, p.fixedBins)
				assert.Equal(t, "n1", p.fixed[0].name)
				assert.EqualValues(t, 2000, p.fixed[0].cap[resCPU])
				assert.EqualValues(t, 0, p.fixed[0].used[resCPU])
			}},
		{"a node of a pool with limits counts against them",
			Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi")}, NodePools: []NodePoolInput{withLimit(phasePool("p", m4), "100")},
				Nodes: []ExistingNode{poolNode("n1", "p", "16")}},
			func(t *testing.T, p *problem) {
				assert.Equal(t, [][]int64{{16000}}, p.startUsage)
			}},
		{"bound pods count in the spread's zone",
			Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi", withLabels("app", "web"), spread)}, NodePools: []NodePoolInput{phasePool("p", m4)},
				Nodes: []ExistingNode{node("n1", "test-zone-2", "4", "16Gi", pod("x", "1", "1Gi", withLabels("app", "web")))}},
			func(t *testing.T, p *problem) {
				require.Len(t, p.groups, 1)
				g := p.groups[0]
				d := p.domTabs[g.key].id("test-zone-2")
				assert.EqualValues(t, 1, p.startCounts[0].match[d])
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, compileOrFail(t, tc.in)) })
	}
}

// TestCompileErrors checks that compile rejects invalid input with an error naming the object and
// the field, classified as invalid input.
func TestCompileErrors(t *testing.T) {
	bound := pod("a", "1", "1Gi")
	bound.Spec.NodeName = "n1"
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"duplicate NodePool", Input{NodePools: []NodePoolInput{phasePool("p", m4), phasePool("p", m4)}}, "NodePool p: metadata.name: appears twice"},
		{"duplicate pod", Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi"), pod("a", "1", "1Gi")}}, "Pod default/a: metadata.name: appears twice"},
		{"bound pod among pending", Input{Pods: []*corev1.Pod{bound}}, "Pod default/a: spec.nodeName"},
		{"nil pod", Input{Pods: []*corev1.Pod{nil}}, "Pod #0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compile(&tc.in, tc.in.Options.withDefaults(), false)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidInput), "%v is not ErrInvalidInput", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestNewStateCopiesTheStart checks that a run's state starts as the problem compiled it and that
// changing it leaves the problem, and so every other run, alone.
func TestNewStateCopiesTheStart(t *testing.T) {
	in := Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi", withLabels("app", "web"),
		withSpread(api.LabelZone, 1, corev1.DoNotSchedule, selector("app", "web")))},
		NodePools: []NodePoolInput{withLimit(phasePool("p", m4), "100")},
		Nodes:     []ExistingNode{poolNode("n1", "p", "16", pod("x", "1", "1Gi", withLabels("app", "web")))}}
	p := compileOrFail(t, in)
	fixedUsed, counts, usage := p.fixed[0].used.clone(), p.startCounts[0].clone(), slices.Clone(p.startUsage[0])

	s := newState(p, false)
	require.Len(t, s.bins, 1)
	assert.NotSame(t, p.fixed[0], s.bins[0])
	assert.Equal(t, fixedUsed, s.bins[0].used)
	assert.Equal(t, counts, s.counts[0])
	assert.Equal(t, usage, s.poolUsed[0])
	assert.Equal(t, 1, s.remaining(p.allClasses[0]))

	s.bins[0].used[resCPU] += 1000
	s.counts[0].match[0]++
	s.poolUsed[0][0] += 4000
	s.queues[0].next = 1
	assert.Equal(t, fixedUsed, p.fixed[0].used)
	assert.Equal(t, counts, p.startCounts[0])
	assert.Equal(t, usage, p.startUsage[0])
	assert.Equal(t, 1, newState(p, true).remaining(p.allClasses[0]))
}

func podNamesOf(pods []*podInfo) []string {
	out := make([]string, len(pods))
	for i, pi := range pods {
		out[i] = pi.pod.Name
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// TestSimulatorErrors checks that the Simulator's own input errors speak the package's one error
// type: *api.FieldError naming the object and the field, classified as invalid input.
func TestSimulatorErrors(t *testing.T) {
	n1 := node("n1", "test-zone-1", "4", "16Gi")
	pools := []NodePoolInput{phasePool("p", m4)}
	cases := []struct {
		name  string
		run   func() error
		want  string
		value any // the rejected value; nil for a missing entry
	}{
		{"nil node", func() error {
			_, err := NewSimulator(Input{Nodes: []ExistingNode{{}}, NodePools: pools})
			return err
		}, "Node #0: node: is nil", nil},
		{"node twice", func() error {
			_, err := NewSimulator(Input{Nodes: []ExistingNode{n1, n1}, NodePools: pools})
			return err
		}, "Node n1: metadata.name: appears twice", nil},
		{"unknown node", func() error {
			sim, err := NewSimulator(Input{Nodes: []ExistingNode{n1}, NodePools: pools})
			require.NoError(t, err)
			_, err = sim.Evacuate(EvacuateRequest{Nodes: []string{"n2"}})
			return err
		}, `EvacuateRequest: nodes: unknown node, got "n2"`, "n2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var ie *api.FieldError
			require.ErrorAs(t, err, &ie)
			assert.True(t, errors.Is(err, ErrInvalidInput))
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.value, ie.Value)
		})
	}
}
