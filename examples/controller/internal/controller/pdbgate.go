package controller

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

// This file keeps drains from running into PodDisruptionBudgets. The plan already paces a pass's
// evictions by each PDB's allowance; the drain then evicts in the plan's order (the order the
// simulation placed the pods), reads each PDB before an eviction and holds the eviction back while
// the PDB allows none, so a drain that goes one allowance at a time waits instead of being refused.
// When the eviction API refuses anyway (the PDB changed since it was read), the refusal is
// recorded on the node's NodeClaim (condition EvictionBlocked, event EvictionRefused) and no new
// command touching that PDB starts until the node's drain gets an eviction through again.

// Condition and event names for a refused eviction.
const (
	conditionEvictionBlocked = "EvictionBlocked"
	reasonEvictionRefused    = "EvictionRefused"
	reasonEvicted            = "Evicted"
)

// evictionGate finds a pod's PDBs (from the informer: selectors rarely change) and reads their
// allowance from the API server right before each eviction.
type evictionGate struct {
	c    *Controller
	pdbs []*policyv1.PodDisruptionBudget
}

func (c *Controller) newEvictionGate() *evictionGate {
	return &evictionGate{c: c, pdbs: c.pdbs()}
}

// evictIfAllowed evicts pod unless one of its PDBs allows no eviction now; it returns the PDB
// that held it back, or the eviction's error. Reading and evicting are one step across the
// controller's workers (evictMu): the eviction API decrements status.disruptionsAllowed as it
// evicts, so the next read, by whichever drain, sees what is left. A pod no PDB covers has no
// allowance to share and is evicted without the lock: with it, every eviction of every drain
// took its turn, about ten a second on the loaded test machine, and a 1,000-pod scale-down's
// commands waited seconds each for their drains (docs/benchmarks.md, issue 18).
func (g *evictionGate) evictIfAllowed(ctx context.Context, pod *corev1.Pod) (held string, err error) {
	if len(g.covering(pod)) == 0 {
		return "", g.c.evict(ctx, pod)
	}
	g.c.evictMu.Lock()
	defer g.c.evictMu.Unlock()
	if held, err := g.holding(ctx, pod); err != nil || held != "" {
		return held, err
	}
	return "", g.c.evict(ctx, pod)
}

// covering lists the PDBs (namespace/name, sorted) whose selector matches pod.
func (g *evictionGate) covering(pod *corev1.Pod) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, pdb := range g.pdbs {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err == nil && sel.Matches(labels.Set(pod.Labels)) {
			out = append(out, pdb)
		}
	}
	slices.SortFunc(out, func(a, b *policyv1.PodDisruptionBudget) int { return strings.Compare(pdbKey(a), pdbKey(b)) })
	return out
}

// holding returns a PDB of pod that allows no eviction now, or "", reading each from the API
// server (the informer may lag behind the eviction API's own decrement). A status the disruption
// controller has not caught up with counts as allowing nothing, as the eviction API treats it.
func (g *evictionGate) holding(ctx context.Context, pod *corev1.Pod) (string, error) {
	for _, pdb := range g.covering(pod) {
		fresh, err := g.c.cfg.Kube.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Get(ctx, pdb.Name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("read PodDisruptionBudget %s: %w", pdbKey(pdb), err)
		}
		if evictionsAllowed(fresh) <= 0 {
			return pdbKey(pdb), nil
		}
	}
	return "", nil
}

// evictionsAllowed is what the eviction API allows under pdb now: status.disruptionsAllowed once
// the disruption controller has observed the current spec, else nothing (upstream: kubernetes
// pkg/registry/core/pod/storage/eviction.go, checkAndDecrement).
func evictionsAllowed(pdb *policyv1.PodDisruptionBudget) int {
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return 0
	}
	return max(int(pdb.Status.DisruptionsAllowed), 0)
}

func pdbKey(pdb *policyv1.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }

// evictionRefused records a refused eviction on the node's NodeClaim and holds the pod's PDBs.
func (c *Controller) evictionRefused(ctx context.Context, node *corev1.Node, pod *corev1.Pod, pdbs []string) {
	c.state.holdPDBs(node.Name, pdbs)
	nc := c.claimFor(node.Spec.ProviderID)
	if nc == nil {
		return
	}
	msg := fmt.Sprintf("eviction of pod %s/%s refused by PodDisruptionBudget %s; commands touching it wait until it clears",
		pod.Namespace, pod.Name, strings.Join(pdbs, ", "))
	changed := false
	err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
		changed = setCondition(nc, conditionEvictionBlocked, metav1.ConditionTrue, reasonEvictionRefused, msg, c.now())
		return changed
	})
	if err = ignoreNotFound(err); err != nil {
		c.log.Error("recording a refused eviction", "nodeClaim", nc.Name, "error", err)
	}
	if changed {
		c.claimEvent(ctx, nc.Name, corev1.EventTypeWarning, reasonEvictionRefused, msg)
	}
}

// evictionCleared lifts what evictionRefused recorded, once the node's drain evicts again.
func (c *Controller) evictionCleared(ctx context.Context, node *corev1.Node) {
	if !c.state.releasePDBs(node.Name) {
		return
	}
	nc := c.claimFor(node.Spec.ProviderID)
	if nc == nil {
		return
	}
	err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
		if !conditionTrue(nc, conditionEvictionBlocked) {
			return false
		}
		return setCondition(nc, conditionEvictionBlocked, metav1.ConditionFalse, reasonEvicted, "the drain evicts again", c.now())
	})
	if err = ignoreNotFound(err); err != nil {
		c.log.Error("clearing a refused eviction", "nodeClaim", nc.Name, "error", err)
	}
}

// heldBy returns a held PDB that a pod of the command's nodes falls under, or "".
func (c *Controller) heldBy(cmd consolidation.Command) string {
	held := c.state.heldPDBs()
	if len(held) == 0 {
		return ""
	}
	g := c.newEvictionGate()
	for _, name := range cmd.Nodes {
		for _, pod := range c.podsOn(name) {
			for _, pdb := range g.covering(pod) {
				if held[pdbKey(pdb)] {
					return pdbKey(pdb)
				}
			}
		}
	}
	return ""
}

// inDrainOrder sorts pods in the order the command that removes the node listed their moves,
// the rest after them by namespace/name.
func (c *Controller) inDrainOrder(node string, pods []*corev1.Pod) []*corev1.Pod {
	order := c.state.drainOrderOf(node)
	if len(order) == 0 {
		return pods
	}
	rank := make(map[string]int, len(order))
	for i, key := range order {
		rank[key] = i
	}
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *corev1.Pod) int {
		ra, okA := rank[a.Namespace+"/"+a.Name]
		rb, okB := rank[b.Namespace+"/"+b.Name]
		switch {
		case okA && okB:
			return ra - rb
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	return out
}

// drainOrders splits a command's moves by the node each pod leaves, keeping their order, except
// that the pods the command moves onto its replacements go first. Why: kube-scheduler scores an
// empty node highest (LeastAllocated) and takes pods in creation order, so when the pods bound
// for existing nodes were evicted first, their re-created copies filled the fresh replacement,
// the pods it was launched for no longer fitted it, and provisioning launched another node for
// them, which a later pass had to remove again (5 of 8 and 4 of 8 replaces in two 1,000-pod
// scale-downs; docs/benchmarks.md, issue 18).
func (c *Controller) drainOrders(cmd consolidation.Command) map[string][]string {
	onNode := map[string]string{}
	for _, name := range cmd.Nodes {
		for _, pod := range c.podsOn(name) {
			onNode[pod.Namespace+"/"+pod.Name] = name
		}
	}
	toReplacement := map[string]bool{}
	for _, nc := range replacements(cmd) {
		toReplacement[nc.Name] = true
	}
	moves := slices.Clone(cmd.Moves)
	slices.SortStableFunc(moves, func(a, b consolidation.Move) int {
		return cmp.Compare(b2i(!toReplacement[a.To]), b2i(!toReplacement[b.To]))
	})
	out := map[string][]string{}
	for _, m := range moves {
		if node, ok := onNode[m.Pod]; ok {
			out[node] = append(out[node], m.Pod)
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// holdPDBs records that node's drain was refused under pdbs.
func (s *state) holdPDBs(node string, pdbs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string][]string{}
	}
	s.held[node] = slices.Clone(pdbs)
}

// releasePDBs drops node's holds and reports whether it had any.
func (s *state) releasePDBs(node string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, had := s.held[node]
	delete(s.held, node)
	return had
}

// heldPDBs is the set of PDBs some drain was refused under and has not got past.
func (s *state) heldPDBs() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, list := range s.held {
		for _, pdb := range list {
			out[pdb] = true
		}
	}
	return out
}

func (s *state) setDrainOrder(orders map[string][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drainOrder == nil {
		s.drainOrder = map[string][]string{}
	}
	maps.Copy(s.drainOrder, orders)
}

func (s *state) drainOrderOf(node string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drainOrder[node]
}
