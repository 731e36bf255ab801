package controller

import (
	"cmp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// noRoomStep is one hold pass of TestPlannedPodsNoRoomAwaitsRefusal: at testNow+after, the
// held pod's resourceVersion is version, another pod is bound to its node or not (stranger),
// and the pass holds it on the node, leaves it out awaiting kube-scheduler, or releases it.
type noRoomStep struct {
	after    time.Duration
	version  string
	stranger bool
	want     string // "held", "awaits" or "released"
}

// TestPlannedPodsNoRoomAwaitsRefusal: a held pod planned onto a NodeClaim whose node
// kube-scheduler filled with another pod is planned again at once only if it was written (kube-scheduler's refusal) after both its
// node's last write (resourceVersion 100 here) and its first hold; otherwise it is left out of
// the passes until it is written or PlannedNoRoomWait (5 s here) has passed since it was first
// found without room; room that comes back holds it again; one planned onto a node already
// there is planned again at once. The pod is 400m on a 2-core node,
// the stranger 1800m.
func TestPlannedPodsNoRoomAwaitsRefusal(t *testing.T) {
	t.Parallel()
	const wait = 5 * time.Second
	tests := []struct {
		name   string
		target string // the NodeClaim "full" unless set
		wait   time.Duration
		steps  []noRoomStep
	}{
		{name: "refused after the node's write and the hold: released at once", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "120", true, "released"}}},
		{name: "not refused yet: awaits, released once written", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "50", true, "awaits"}, {3 * time.Second, "130", true, "released"}}},
		{name: "not refused: awaits until the wait is over", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "50", true, "awaits"},
			{5900 * time.Millisecond, "50", true, "awaits"}, {6 * time.Second, "50", true, "released"}}},
		{name: "written before its node was (a refusal while it booted): awaits", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "80", true, "awaits"}}},
		{name: "first held without room, created after the node's write: awaits", wait: wait, steps: []noRoomStep{
			{0, "150", true, "awaits"}, {time.Second, "150", true, "awaits"}, {2 * time.Second, "151", true, "released"}}},
		{name: "room back: held again, a later wait starts afresh", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "50", true, "awaits"}, {2 * time.Second, "50", false, "held"},
			{3 * time.Second, "50", true, "awaits"}, {7 * time.Second, "50", true, "awaits"},
			{8 * time.Second, "50", true, "released"}}},
		{name: "a resourceVersion that is no number: released at once", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "v2", true, "released"}}},
		{name: "wait off: released at once", wait: -1, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "50", true, "released"}}},
		{name: "planned onto the node itself: released at once", target: "full-vm", wait: wait, steps: []noRoomStep{
			{0, "50", false, "held"}, {time.Second, "50", true, "released"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := noRoomEnv(t)
			target := cmp.Or(tc.target, "full")
			e.c.planned.record(target, []string{"default/web"}, testNow)
			for i, step := range tc.steps {
				e.noRoomStep(t, step)
				s := e.c.takeSnapshot()
				s.Now = testNow.Add(step.after)
				in := s.ProvisionerInput(provisioner.Options{})
				held, _ := e.c.planned.hold(s.Snapshot, &in, holdOptions{Grace: time.Minute, NoRoomWait: tc.wait})
				pending := mapSlice(in.Pods, func(p *corev1.Pod) string { return p.Name })
				released := e.c.planned.takeReleased()
				switch step.want {
				case "held":
					assert.Equal(t, 1, held, "step %d", i)
					assert.Contains(t, podsOnTarget(t, in, "full-vm"), "web", "step %d", i)
				case "awaits":
					assert.Equal(t, 1, held, "step %d: counted with the held pods", i)
					assert.Empty(t, pending, "step %d: not planned", i)
					assert.NotContains(t, podsOnTarget(t, in, "full-vm"), "web", "step %d: not on its node", i)
					assert.Equal(t, []string{"default/web@" + target}, e.c.planned.awaitingPods(), "step %d", i)
					assert.Empty(t, released, "step %d", i)
				case "released":
					assert.Equal(t, []string{"web"}, pending, "step %d: planned again", i)
					assert.Equal(t, map[string][]string{releaseNoRoom: {"default/web@" + target}}, released, "step %d", i)
					assert.Empty(t, e.c.planned.awaitingPods(), "step %d", i)
				default:
					require.Failf(t, "bad step", "want %q", step.want)
				}
			}
		})
	}
}

// noRoomEnv is plannedEnv with a NodeClaim "full" registered as the 2-core node "full-vm",
// written at resourceVersion 100.
func noRoomEnv(t *testing.T) *testEnv {
	t.Helper()
	e := plannedEnv(t)
	full := newNode("full-vm", pid("full"), isReady())
	full.ResourceVersion = "100"
	full.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	e.addNode(t, full)
	e.addClaim(t, testClaim("full", "default", pid("full"), withLabel(api.LabelInstanceType, d2), launched(), registered()))
	return e
}

// noRoomStep sets the pod's resourceVersion and binds the stranger to the node or removes it.
func (e *testEnv) noRoomStep(t *testing.T, step noRoomStep) {
	t.Helper()
	web := newPod("web", unschedulable(), cpuRequest("400m"))
	web.ResourceVersion = step.version
	e.addPod(t, web)
	stranger := newPod("stranger", boundTo("full-vm"), cpuRequest("1800m"))
	if step.stranger {
		e.addPod(t, stranger)
		return
	}
	require.NoError(t, e.c.inf.pods.GetIndexer().Delete(stranger))
}
