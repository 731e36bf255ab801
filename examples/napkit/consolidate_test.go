package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const goldenNow = "2026-03-02T12:00:00Z"

// decideMillis is the one field of the plan that varies between runs.
var decideMillis = regexp.MustCompile(`"decideMillis": [0-9]+`)

func runConsolidateCLI(t *testing.T, args ...string) (*consolidation.Plan, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"consolidate"}, args...), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var plan consolidation.Plan
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &plan), stdout.String())
	return &plan, decideMillis.ReplaceAllString(stdout.String(), `"decideMillis": 0`)
}

// consolidateGolden runs `napkit consolidate` on testdata/<name>.yaml and compares the JSON with
// testdata/<name>.golden.json (rewritten with -update).
func consolidateGolden(t *testing.T, name string) *consolidation.Plan {
	t.Helper()
	plan, got := runConsolidateCLI(t, "-f", filepath.Join("testdata", name+".yaml"), "--now", goldenNow)
	golden := filepath.Join("testdata", name+".golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
	return plan
}

// TestConsolidatePDBGolden: PDB allowances computed from the spec pace the pass. Of three nodes
// each holding one replica of a PDB that allows 1, one goes now and another is deferred (the third
// receives the moved replica); the node holding both replicas of a PDB allowing 1 still goes, paced.
func TestConsolidatePDBGolden(t *testing.T) {
	plan := consolidateGolden(t, "consolidate-pdb")
	paced := map[string][]string{}
	for _, c := range plan.Commands {
		paced[strings.Join(c.Nodes, ",")] = c.PacedBy
	}
	assert.Equal(t, map[string][]string{"aks-a": nil, "aks-pair": {"default/api"}}, paced)
	require.Len(t, plan.Deferred, 1)
	assert.Equal(t, []string{"aks-c"}, plan.Deferred[0].Nodes)
	assert.Equal(t, []consolidation.DeferredBudget{{PodDisruptionBudget: "default/web", Evictions: 1, Allowed: 0}}, plan.Deferred[0].Budgets)
}

func TestConsolidatePDBTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"consolidate", "-f", "testdata/consolidate-pdb.yaml", "--now", goldenNow, "-o", "table"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "paced aks-pair: drains one allowance at a time under default/api\n")
	// $0.1074/h: a Standard_D2als_v6 ($0.0804/h) and its 128 GB Premium_LRS (P10) OS disk ($0.027/h).
	assert.Contains(t, stdout.String(), "deferred delete Underutilized aks-c ($0.1074/h): pdb default/web: 1 evictions, 0 allowed\n")
}

func TestConsolidateGolden(t *testing.T) {
	plan := consolidateGolden(t, "consolidate-mixed")

	assert.Equal(t, "ConsolidationPlan", plan.Kind)
	reasons := map[string]consolidation.Reason{}
	for _, c := range plan.Commands {
		for _, n := range c.Nodes {
			reasons[n] = c.Reason
		}
	}
	assert.Equal(t, map[string]consolidation.Reason{"aks-empty": consolidation.ReasonEmpty,
		"aks-underused": consolidation.ReasonUnderutilized}, reasons)
	blocked := map[string]string{}
	for _, b := range plan.Blocked {
		blocked[b.Node] = b.Reason
	}
	assert.Contains(t, blocked["aks-protected"], api.AnnotationDoNotDisrupt)
}

func TestConsolidateTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"consolidate", "-f", "testdata/consolidate-mixed.yaml", "--now", goldenNow, "-o", "table"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "COMMAND")
	assert.Regexp(t, `delete\s+Empty\s+aks-empty`, out)
	assert.Contains(t, out, "blocked aks-protected: ")
}

// TestConsolidateDeterministic: the same input gives the same bytes whatever the order of the files.
func TestConsolidateDeterministic(t *testing.T) {
	docs := strings.Split(readFile(t, "testdata/consolidate-mixed.yaml"), "\n---\n")
	slices.Reverse(docs)
	reversed := writeTemp(t, "reversed.yaml", strings.Join(docs, "\n---\n"))
	_, a := runConsolidateCLI(t, "-f", "testdata/consolidate-mixed.yaml", "--now", goldenNow)
	_, b := runConsolidateCLI(t, "-f", reversed, "--now", goldenNow)
	assert.Equal(t, a, b)
}

// TestConsolidateSeedWalkthrough is the second half of the seed walkthrough: plan inflate's five
// pods, let the NodeClaims become Nodes running them, delete the Deployment, and consolidate until
// nothing is left to do: every node is empty and goes, reason Empty. The pool sets no budget, so the
// default 10% lets one node go per pass, as Karpenter's does.
func TestConsolidateSeedWalkthrough(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"plan", "-f", "testdata/seed-walkthrough.yaml"}, &stdout, &stderr), stderr.String())
	var planned struct {
		NodeClaims []plannedClaim `json:"nodeClaims"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &planned))
	require.NotEmpty(t, planned.NodeClaims)
	pools := writeTemp(t, "pools.yaml", poolAndClass(t, "testdata/seed-walkthrough.yaml"))

	running := writeTemp(t, "running.json", clusterJSON(t, planned.NodeClaims, true))
	plan, _ := runConsolidateCLI(t, "-f", pools, "-f", running, "--now", goldenNow)
	assert.Empty(t, removedFor(plan, consolidation.ReasonEmpty), "inflate still runs: no node is empty")

	left := planned.NodeClaims
	for pass := 1; len(left) > 0; pass++ {
		require.LessOrEqual(t, pass, len(planned.NodeClaims), "empty nodes left: %v", left)
		deleted := writeTemp(t, "deleted.json", clusterJSON(t, left, false))
		plan, _ = runConsolidateCLI(t, "-f", pools, "-f", deleted, "--now", goldenNow)
		require.NotEmpty(t, plan.Commands, "pass %d removes nothing", pass)
		for _, c := range plan.Commands {
			assert.Equal(t, consolidation.CommandDelete, c.Kind)
			assert.Equal(t, consolidation.ReasonEmpty, c.Reason)
			assert.Nil(t, c.Replacement)
			assert.Empty(t, c.Moves)
		}
		gone := removedFor(plan, consolidation.ReasonEmpty)
		left = slices.DeleteFunc(left, func(nc plannedClaim) bool { return slices.Contains(gone, nc.Name) })
	}
}

// plannedClaim is the part of a `napkit plan` NodeClaim a Node is made from.
type plannedClaim struct {
	Name         string              `json:"name"`
	NodePool     string              `json:"nodePool"`
	InstanceType string              `json:"instanceType"`
	Zone         string              `json:"zone"`
	CapacityType string              `json:"capacityType"`
	Capacity     corev1.ResourceList `json:"capacity"`
	Allocatable  corev1.ResourceList `json:"allocatable"`
	Labels       map[string]string   `json:"labels"`
	Pods         []string            `json:"pods"`
}

// clusterJSON renders the planned NodeClaims as Ready Nodes, created an hour before goldenNow, and,
// with pods, inflate's pods bound to them.
func clusterJSON(t *testing.T, claims []plannedClaim, pods bool) string {
	t.Helper()
	created := metav1.NewTime(mustTime(t, "2026-03-02T11:00:00Z"))
	var objects []any
	for _, nc := range claims {
		objects = append(objects, claimNode(nc, created))
		if !pods {
			continue
		}
		for _, key := range nc.Pods {
			objects = append(objects, inflatePod(key, nc.Name, created))
		}
	}
	data, err := json.Marshal(objects)
	require.NoError(t, err)
	return string(data)
}

func claimNode(nc plannedClaim, created metav1.Time) *corev1.Node {
	labels := map[string]string{}
	for k, v := range nc.Labels {
		labels[k] = v
	}
	labels[api.LabelNodePool], labels[api.LabelInstanceType] = nc.NodePool, nc.InstanceType
	labels[api.LabelZone], labels[api.LabelCapacityType], labels[api.LabelHostname] = nc.Zone, nc.CapacityType, nc.Name
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: labels, CreationTimestamp: created},
		Status: corev1.NodeStatus{Capacity: nc.Capacity, Allocatable: nc.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: created}}},
	}
}

// inflatePod is one of inflate's pods ("default/inflate-3"), as the Deployment's template makes it.
func inflatePod(key, node string, created metav1.Time) *corev1.Pod {
	namespace, name, _ := strings.Cut(key, "/")
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": "inflate"}, CreationTimestamp: created},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "inflate", Image: "mcr.microsoft.com/oss/kubernetes/pause:3.6",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &created},
	}
}

func removedFor(plan *consolidation.Plan, reason consolidation.Reason) []string {
	out := []string{}
	for _, c := range plan.Commands {
		if c.Reason == reason {
			out = append(out, c.Nodes...)
		}
	}
	slices.Sort(out)
	return out
}

// poolAndClass returns the NodePool and AKSNodeClass documents of a manifest file.
func poolAndClass(t *testing.T, path string) string {
	t.Helper()
	var keep []string
	for _, doc := range strings.Split(readFile(t, path), "\n---\n") {
		if strings.Contains(doc, "\nkind: NodePool\n") || strings.Contains(doc, "\nkind: AKSNodeClass\n") {
			keep = append(keep, strings.TrimSpace(doc))
		}
	}
	require.Len(t, keep, 2, "want one NodePool and one AKSNodeClass in %s", path)
	return "---\n" + strings.Join(keep, "\n---\n") + "\n"
}

func nodeYAML(name, pool, zone string) string {
	return "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels:\n    karpenter.sh/nodepool: " + pool +
		"\n    node.kubernetes.io/instance-type: Standard_D2als_v6\n    topology.kubernetes.io/zone: \"" + zone +
		"\"\n    karpenter.sh/capacity-type: on-demand\n"
}

func boundPod(name, node string) string {
	return "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n  nodeName: " + node +
		"\n  containers:\n    - name: main\n      image: pause\n"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v
}
