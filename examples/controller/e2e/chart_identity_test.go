//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
)

// envUpdateRBAC=1 rewrites charts/napkit/rbac/rules.yaml from the audited requests (an environment
// variable, since scripts/e2e.sh passes its arguments before the package list).
const envUpdateRBAC = "NAPKIT_UPDATE_RBAC"

const (
	// chartNamespace and chartServiceAccount are the release deploy/chartrender renders for the
	// e2e suite (testdata/e2e.yaml): release napkit in namespace napkit, reading the
	// maintenance-window ConfigMap in chartSystemNamespace.
	chartNamespace       = "napkit"
	chartServiceAccount  = "napkit"
	chartSystemNamespace = "kube-system"
	// chartReplica is the controller's leader-election identity (a pod name in the Deployment).
	chartReplica = "e2e-replica-0"
	// chartObjects is that release's objects but the CRDs, as the render test keeps them.
	chartObjects = "../../../deploy/chartrender/testdata/e2e-chart.golden.yaml"
	// rulesFile is the chart's rule set, which this test derives.
	rulesFile = "../../../charts/napkit/rbac/rules.yaml"
)

// TestControllerUnderChartIdentity follows README's install as far as this machine allows
// (installChart: the namespace, the bootstrap-token Secret, every rendered object accepted by a
// server-side dry run, the ServiceAccount and RBAC created; the CRDs are the same embedded files,
// installed by startCluster), then runs the controller with a token of that ServiceAccount from the
// TokenRequest API, not as cluster admin, with leader election in the release namespace and the
// maintenance window read from the system namespace. It runs the seed walkthrough, drains a deleted
// node under a PodDisruptionBudget, and consolidates the empty nodes away, with the upkeep loops
// (AKSNodeClass status, repair, quota) on; the simulated kubelets run under the same ServiceAccount,
// as in a --simulate deployment. The API server's audit log then shows every request they made:
// none was forbidden, and the rules they need are exactly the chart's, the kubelets' apart
// (charts/napkit/rbac/rules.yaml; NAPKIT_UPDATE_RBAC=1 rewrites it from the audit).
func TestControllerUnderChartIdentity(t *testing.T) {
	auditDir := t.TempDir()
	policy := filepath.Join(auditDir, "policy.yaml")
	auditLog := filepath.Join(auditDir, "audit.log")
	user := "system:serviceaccount:" + chartNamespace + ":" + chartServiceAccount
	require.NoError(t, os.WriteFile(policy, []byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    users: ["`+user+`"]
  - level: None
`), 0o644))
	var saConfig *rest.Config
	s := startStack(t, stackOptions{
		// The upkeep loops too (AKSNodeClass status, repair, quota), so their requests are audited.
		upkeep: true,
		clusterEnv: []string{"KUBE_LOCAL_APISERVER_ARGS=--audit-policy-file=" + policy + " --audit-log-path=" + auditLog +
			" --audit-log-format=json --audit-log-mode=blocking"},
		beforeController: func(c *cluster) {
			installChart(t, c)
			saConfig = serviceAccountConfig(t, c, chartNamespace, chartServiceAccount)
		},
		// The simulated kubelets run under the same ServiceAccount, as they do in a --simulate
		// deployment; their user agent tells their requests apart in the audit log.
		kubeletClients: func(*cluster) (kubernetes.Interface, dynamic.Interface) { return kubeletClientsAs(saConfig) },
		// Node Leases renewed every second, so that renewals happen within the scenario.
		kubelet: func(o *simnodes.Options) { o.LeaseRenewInterval = time.Second },
		tune: func(cfg *controller.Config) {
			cfg.Kube = kubernetes.NewForConfigOrDie(saConfig)
			cfg.Dynamic = dynamic.NewForConfigOrDie(saConfig)
			cfg.LeaderElectionNamespace, cfg.LeaderElectionName, cfg.Identity = chartNamespace, "napkit", chartReplica
			cfg.Upkeep.SystemNamespace = chartSystemNamespace
		},
	})
	scenarioPassed := false
	t.Cleanup(func() {
		if t.Failed() { // a scenario step timed out: say which requests were refused
			if forbidden := forbiddenRequests(readAudit(t, auditLog, user)); len(forbidden) > 0 {
				t.Logf("requests the chart's RBAC forbade: %s", strings.Join(forbidden, "; "))
			}
		}
	})
	if os.Getenv(envUpdateRBAC) == "1" {
		// A run whose scenario passed with no forbidden request writes exactly the audited rules;
		// any other run (a missing rule stopped the controller short) adds the audited ones to the
		// file's, so the next run gets further. Repeat until a run passes, then once more to check.
		t.Cleanup(func() {
			derived := rulesFromAudit(t, readAudit(t, auditLog, user))
			if !scenarioPassed {
				derived = unionRules(t, readRules(t, rulesFile), derived)
			}
			derived = unionRules(t, derived, staleCopyRules)
			writeRules(t, rulesFile, derived)
		})
	}
	ctx := t.Context()

	// README step 4: the replica holds the Lease in the release namespace.
	waitUntil(t, 30*time.Second, "the Lease napkit/napkit held", func(ctx context.Context) error {
		lease, err := s.c.kube.CoordinationV1().Leases(chartNamespace).Get(ctx, "napkit", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != chartReplica {
			return fmt.Errorf("holder %v", h)
		}
		return nil
	})

	// The seed walkthrough: inflate 0 -> 5 gets NodeClaims within the pool, nodes join, pods run.
	applySeed(t, s.c)
	require.NoError(t, s.c.scale(ctx, "default", "inflate", 5))
	var running []corev1.Pod
	waitUntil(t, 120*time.Second, "5 inflate pods running", func(ctx context.Context) error {
		var err error
		running, err = s.c.runningPods(ctx, "default", "inflate", 5)
		return err
	})
	claims, err := s.c.nodeClaims(ctx)
	require.NoError(t, err)
	checkSeedClaims(t, claims)

	// Drain: deleting a node evicts its pods (each after reading their PDB), which run elsewhere,
	// and its VM goes.
	_, err = s.c.kube.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb("default", "inflate", 2), metav1.CreateOptions{})
	require.NoError(t, err)
	// The victim hosts an inflate pod, so the drain always evicts (and reads the PDB): a node
	// kube-scheduler left empty would leave those rules unused in this run.
	victim := running[0].Spec.NodeName
	vm := vmOf(t, s, victim)
	require.NoError(t, s.c.kube.CoreV1().Nodes().Delete(ctx, victim, metav1.DeleteOptions{}))
	waitUntil(t, 90*time.Second, "node "+victim+" drained and gone with its VM", func(ctx context.Context) error {
		return gone(ctx, s, victim, vm)
	})
	waitUntil(t, 120*time.Second, "5 inflate pods running again", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, "default", "inflate", 5)
		return err
	})

	// A restarted simulation (another simulated kubelet, for a while) adopts the running node: its
	// Node and node Lease exist already, so it reads them, as after a restart of a --simulate pod.
	kube, dyn := kubeletClientsAs(saConfig)
	stopRestarted := s.startKubelets(kube, dyn)
	waitUntil(t, 60*time.Second, "the restarted simulation read the existing node Lease", func(context.Context) error {
		for _, e := range readAudit(t, auditLog, user) {
			if fromKubelets(e) && e.Verb == "get" && e.ObjectRef != nil && e.ObjectRef.Resource == "leases" {
				return nil
			}
		}
		return fmt.Errorf("no node Lease read by a simulated kubelet yet")
	})
	stopRestarted()

	// Consolidation: without the Deployment the empty nodes go.
	require.NoError(t, s.c.kube.AppsV1().Deployments("default").Delete(ctx, "inflate", metav1.DeleteOptions{}))
	waitUntil(t, 120*time.Second, "the empty nodes consolidated away", func(ctx context.Context) error {
		return s.noPoolCapacity(ctx, seedPool)
	})
	s.stopController()

	events := readAudit(t, auditLog, user)
	require.NotEmpty(t, events, "the audit log records the controller's requests")
	forbidden := forbiddenRequests(events)
	derived := rulesFromAudit(t, events)
	scenarioPassed = len(forbidden) == 0 && !t.Failed()
	t.Logf("%d audited requests by %s, %d forbidden", len(events), user, len(forbidden))
	assert.Empty(t, forbidden, "requests the chart's RBAC forbade")
	want := readRules(t, rulesFile)
	missing, unused := ruleDiff(expand(want), expand(derived))
	assert.Subset(t, expand(want), expand(staleCopyRules), "the chart grants the reads of a stale cached copy")
	unused = slices.DeleteFunc(unused, func(rule string) bool { return slices.Contains(expand(staleCopyRules), rule) })
	missing = slices.DeleteFunc(missing, func(rule string) bool { return slices.Contains(expand(nominationRules), rule) })
	assert.Empty(t, missing, "audited requests the chart's rules do not grant: run NAPKIT_UPDATE_RBAC=1 bash scripts/e2e.sh -run ChartIdentity")
	assert.Empty(t, unused, "rules of the chart no request used: run NAPKIT_UPDATE_RBAC=1 bash scripts/e2e.sh -run ChartIdentity")
}

// staleCopyRules are the controller's reads of a NodeClaim or Node it writes: it writes from the
// informer's copy and reads the object only when that copy is stale or says nothing new (a write
// conflict, an object not seen yet; internal/controller/update.go, writeFromCache), so whether a
// run makes them depends on timing (the NodeClaim read was missing from some runs). The chart must
// grant them always, or a conflict would become a forbidden request: the check asks the rules file
// to hold them and does not ask a run to show them, and NAPKIT_UPDATE_RBAC keeps them.
var staleCopyRules = rbacRules{ClusterRules: []rbacRule{
	{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
	{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodeclaims"}, Verbs: []string{"get"}},
}}

// nominationRules are the pod nominations of the default --nominate-pods=predicted, which the
// chart's template grants whenever controller.nominatePods is not off (charts/napkit/templates/
// rbac.yaml), not rules.yaml: whether a run writes one depends on how kube-scheduler's placement
// compares with the replay's, so the check allows them without asking a run to show them.
var nominationRules = rbacRules{ClusterRules: []rbacRule{
	{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"patch"}},
}}

// serviceAccountConfig is a client config that authenticates only with a token the TokenRequest
// API issues for the ServiceAccount (no client certificate of the admin).
func serviceAccountConfig(t *testing.T, c *cluster, namespace, name string) *rest.Config {
	t.Helper()
	expiry := int64(3600)
	tr, err := c.kube.CoreV1().ServiceAccounts(namespace).CreateToken(t.Context(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.AnonymousClientConfig(c.rest)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

// forbiddenRequests lists the refused requests (HTTP 403) as "verb URI".
func forbiddenRequests(events []auditEvent) []string {
	var out []string
	for _, e := range events {
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 403 {
			out = append(out, e.Verb+" "+e.RequestURI)
		}
	}
	return out
}

// kubeletClientsAs are the simulated kubelets' clients with cfg's identity and their user agent.
func kubeletClientsAs(cfg *rest.Config) (kubernetes.Interface, dynamic.Interface) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst, cfg.UserAgent = 1000, 2000, simnodes.UserAgent
	return kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg)
}
