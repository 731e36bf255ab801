package snapshot

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// matchClaims pairs NodeClaims with Nodes: by provider ID, else status.nodeName, else the claim's own
// name. A Node two NodeClaims point at is an issue; the first keeps it.
func (t *taker) matchClaims() {
	byName := make(map[string]bool, len(t.objects.Nodes))
	byProviderID := make(map[string]string, len(t.objects.Nodes))
	for _, n := range t.objects.Nodes {
		byName[n.Name] = true
		if n.Spec.ProviderID != "" {
			byProviderID[n.Spec.ProviderID] = n.Name
		}
	}
	t.claimOf = map[string]int{}
	t.nodeOf = make([]string, len(t.objects.NodeClaims))
	for i, nc := range t.objects.NodeClaims {
		name, field := nodeOfClaim(nc, byName, byProviderID)
		if name == "" {
			continue
		}
		if j, taken := t.claimOf[name]; taken {
			t.issue(issue("NodeClaim "+nc.Name, field, "Node %q already belongs to NodeClaim %s", name, t.objects.NodeClaims[j].Name))
			continue
		}
		t.claimOf[name], t.nodeOf[i] = i, name
	}
}

// nodeOfClaim names the claim's Node and the field that says so, or "" when the objects lack it.
func nodeOfClaim(nc *api.NodeClaim, byName map[string]bool, byProviderID map[string]string) (node, field string) {
	switch {
	case nc.Status.ProviderID != "" && byProviderID[nc.Status.ProviderID] != "":
		return byProviderID[nc.Status.ProviderID], "status.providerID"
	case nc.Status.NodeName != "" && byName[nc.Status.NodeName]:
		return nc.Status.NodeName, "status.nodeName"
	case nc.Status.NodeName == "" && byName[nc.Name]:
		return nc.Name, "metadata.name"
	}
	return "", ""
}

// claimOfNode returns the NodeClaim matched to the node, or nil.
func (t *taker) claimOfNode(node string) *api.NodeClaim {
	if i, ok := t.claimOf[node]; ok {
		return t.objects.NodeClaims[i]
	}
	return nil
}

// inFlight lists the NodeClaims whose Node has not registered (or that have no Node), unless they
// are being deleted or failed to launch. A claim whose NodePool or instance type the snapshot lacks
// is an issue and left out: its capacity cannot be counted.
func (t *taker) inFlight() {
	registered := map[string]bool{}
	for _, n := range t.Nodes {
		if n.Registered {
			registered[n.Node.Node.Name] = true
		}
	}
	for i, nc := range t.objects.NodeClaims {
		if nc.DeletionTimestamp != nil || LaunchFailed(nc) {
			continue
		}
		if registered[t.nodeOf[i]] {
			continue
		}
		if claim, ok := t.inFlightClaim(nc); ok {
			t.InFlight = append(t.InFlight, claim)
		}
	}
}

func (t *taker) inFlightClaim(nc *api.NodeClaim) (provisioner.InFlightClaim, bool) {
	poolName := nc.Labels[api.LabelNodePool]
	pool, ok := findPool(t.objects.NodePools, poolName)
	if !ok {
		t.issue(issue("NodeClaim "+nc.Name, "metadata.labels["+api.LabelNodePool+"]", "no NodePool %q to count the claim against", poolName))
		return provisioner.InFlightClaim{}, false
	}
	typeName := InstanceType(nc)
	if !slices.ContainsFunc(pool.InstanceTypes, func(it *instancetype.InstanceType) bool { return it.Name == typeName }) {
		t.issue(issue("NodeClaim "+nc.Name, "metadata.labels["+api.LabelInstanceType+"]", "instance type %q is not in NodePool %s's catalogue", typeName, poolName))
		return provisioner.InFlightClaim{}, false
	}
	l := nc.Labels
	return provisioner.InFlightClaim{Name: nc.Name, NodePool: poolName, InstanceType: typeName,
		Zone: l[api.LabelZone], CapacityType: l[api.LabelCapacityType], Labels: l}, true
}

// InstanceType is the claim's instance type: its label once launched, else the first (cheapest)
// option of its launch list.
func InstanceType(nc *api.NodeClaim) string {
	if name := nc.Labels[api.LabelInstanceType]; name != "" {
		return name
	}
	for _, r := range nc.Spec.Requirements {
		if r.Key == api.LabelInstanceType && len(r.Values) > 0 {
			return r.Values[0]
		}
	}
	return ""
}

// LaunchFailed reports a claim whose Launched condition is False: the launch gave up.
func LaunchFailed(nc *api.NodeClaim) bool {
	c := meta.FindStatusCondition(nc.Status.Conditions, api.ConditionLaunched)
	return c != nil && c.Status == metav1.ConditionFalse
}
