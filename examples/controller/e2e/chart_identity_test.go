//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// envUpdateRBAC=1 rewrites charts/napkit/rbac/rules.yaml from the audited requests (an environment
// variable, since scripts/e2e.sh passes its arguments before the package list).
const envUpdateRBAC = "NAPKIT_UPDATE_RBAC"

const (
	// chartNamespace and chartServiceAccount are the release deploy/chartrender renders for the
	// e2e suite (testdata/e2e.yaml): release napkit in namespace napkit.
	chartNamespace      = "napkit"
	chartServiceAccount = "napkit"
	// chartRBAC is that release's ServiceAccount and RBAC, as the render test keeps them.
	chartRBAC = "../../../deploy/chartrender/testdata/e2e-rbac.golden.yaml"
	// rulesFile is the chart's rule set, which this test derives.
	rulesFile = "../../../charts/napkit/rbac/rules.yaml"
)

// TestControllerUnderChartIdentity applies the chart's Namespace, ServiceAccount and RBAC (the
// CRDs are the same embedded files, installed by startCluster), then runs the controller with a
// token of that ServiceAccount from the TokenRequest API, not as cluster admin, with leader
// election in the release namespace. It runs the seed walkthrough, drains a deleted node, and
// consolidates the empty nodes away. The API server's audit log then shows every request the
// controller made: none was forbidden, and the rules they need are exactly the chart's
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
			applyChartRBAC(t, c)
			saConfig = serviceAccountConfig(t, c, chartNamespace, chartServiceAccount)
		},
		tune: func(cfg *controller.Config) {
			cfg.Kube = kubernetes.NewForConfigOrDie(saConfig)
			cfg.Dynamic = dynamic.NewForConfigOrDie(saConfig)
			cfg.LeaderElectionNamespace, cfg.LeaderElectionName, cfg.Identity = chartNamespace, "napkit", "e2e-replica-0"
		},
	})
	scenarioPassed := false
	if os.Getenv(envUpdateRBAC) == "1" {
		// A run whose scenario passed with no forbidden request writes exactly the audited rules;
		// any other run (a missing rule stopped the controller short) adds the audited ones to the
		// file's, so the next run gets further. Repeat until a run passes, then once more to check.
		t.Cleanup(func() {
			derived := rulesFromAudit(t, readAudit(t, auditLog, user), chartNamespace)
			if !scenarioPassed {
				derived = unionRules(t, readRules(t, rulesFile), derived)
			}
			writeRules(t, rulesFile, derived)
		})
	}
	ctx := t.Context()

	// The seed walkthrough: inflate 0 -> 5 gets NodeClaims within the pool, nodes join, pods run.
	applySeed(t, s.c)
	require.NoError(t, s.c.scale(ctx, "default", "inflate", 5))
	waitUntil(t, 120*time.Second, "5 inflate pods running", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, "default", "inflate", 5)
		return err
	})
	claims, err := s.c.nodeClaims(ctx)
	require.NoError(t, err)
	checkSeedClaims(t, claims)

	// Drain: deleting a node evicts its pods, which run elsewhere, and its VM goes.
	nodes, err := s.c.poolNodes(ctx, seedPool)
	require.NoError(t, err)
	require.NotEmpty(t, nodes)
	victim := nodes[0].Name
	vm := vmOf(t, s, victim)
	require.NoError(t, s.c.kube.CoreV1().Nodes().Delete(ctx, victim, metav1.DeleteOptions{}))
	waitUntil(t, 90*time.Second, "node "+victim+" drained and gone with its VM", func(ctx context.Context) error {
		return gone(ctx, s, victim, vm)
	})
	waitUntil(t, 120*time.Second, "5 inflate pods running again", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, "default", "inflate", 5)
		return err
	})

	// Consolidation: without the Deployment the empty nodes go.
	require.NoError(t, s.c.kube.AppsV1().Deployments("default").Delete(ctx, "inflate", metav1.DeleteOptions{}))
	waitUntil(t, 120*time.Second, "the empty nodes consolidated away", func(ctx context.Context) error {
		return s.noPoolCapacity(ctx, seedPool)
	})
	s.stopController()

	events := readAudit(t, auditLog, user)
	require.NotEmpty(t, events, "the audit log records the controller's requests")
	var forbidden []string
	for _, e := range events {
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 403 {
			forbidden = append(forbidden, e.Verb+" "+e.RequestURI)
		}
	}
	derived := rulesFromAudit(t, events, chartNamespace)
	scenarioPassed = len(forbidden) == 0 && !t.Failed()
	t.Logf("%d audited requests by %s, %d forbidden", len(events), user, len(forbidden))
	assert.Empty(t, forbidden, "requests the chart's RBAC forbade")
	want := readRules(t, rulesFile)
	assert.Equal(t, expand(want), expand(derived), "the chart's rules differ from the audited requests: run NAPKIT_UPDATE_RBAC=1 bash scripts/e2e.sh -run ChartIdentity")
}

// expand lists rules as sorted "scope group resource verb" lines, so rule grouping does not matter.
func expand(r rbacRules) []string {
	var out []string
	for scope, rules := range map[string][]rbacRule{"cluster": r.ClusterRules, "namespace": r.NamespaceRules} {
		for _, rule := range rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, v := range rule.Verbs {
						out = append(out, fmt.Sprintf("%s %q %s %s", scope, g, res, v))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// applyChartRBAC creates the release namespace and the rendered ServiceAccount, ClusterRole,
// ClusterRoleBinding, Role and RoleBinding.
func applyChartRBAC(t *testing.T, c *cluster) {
	t.Helper()
	ctx := t.Context()
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	objs, err := readObjects(chartRBAC)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	require.Equal(t, map[string]int{"ServiceAccount": 1, "ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 1, "RoleBinding": 1}, kinds)
	require.NoError(t, c.create(ctx, objs...))
}

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

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// rbacRules is charts/napkit/rbac/rules.yaml.
type rbacRules struct {
	ClusterRules   []rbacRule `json:"clusterRules"`
	NamespaceRules []rbacRule `json:"namespaceRules"`
}

type rbacRule struct {
	APIGroups []string `json:"apiGroups"`
	Resources []string `json:"resources"`
	Verbs     []string `json:"verbs"`
}

// readAudit returns the user's requests (one per completed request) from the JSON-lines audit log.
func readAudit(t *testing.T, path, user string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "audit line %q", sc.Text())
		if e.User.Username == user && (e.Stage == "ResponseComplete" || e.Stage == "Panic" || e.Stage == "ResponseStarted" && e.Verb == "watch") {
			out = append(out, e)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// rulesFromAudit groups the requests into rules: one per API group and resource, with the sorted
// verbs (watch brings list); requests inside namespace go to the Role when their resource is namespaced-only there
// (leases), everything else to the ClusterRole.
func rulesFromAudit(t *testing.T, events []auditEvent, namespace string) rbacRules {
	t.Helper()
	type key struct{ group, resource string }
	cluster, inNamespace := map[key]map[string]bool{}, map[key]map[string]bool{}
	for _, e := range events {
		if e.ObjectRef == nil {
			t.Logf("non-resource request %s %s (code %v): granted to every authenticated user by system:discovery", e.Verb, e.RequestURI, e.ResponseStatus)
			continue
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		k := key{e.ObjectRef.APIGroup, res}
		target := cluster
		if k.group == "coordination.k8s.io" && res == "leases" {
			assert.Equal(t, namespace, e.ObjectRef.Namespace, "the Lease lives in the release namespace: %s", e.RequestURI)
			target = inNamespace
		}
		if target[k] == nil {
			target[k] = map[string]bool{}
		}
		target[k][e.Verb] = true
		if e.Verb == "watch" {
			// client-go's informers list through a streaming watch (sendInitialEvents) where the
			// API server offers it and fall back to LIST then WATCH where it does not (older or
			// differently configured clusters), so every watched resource needs list too.
			target[k]["list"] = true
		}
	}
	toRules := func(m map[key]map[string]bool) []rbacRule {
		var out []rbacRule
		for k, verbs := range m {
			vs := make([]string, 0, len(verbs))
			for v := range verbs {
				vs = append(vs, v)
			}
			sort.Strings(vs)
			out = append(out, rbacRule{APIGroups: []string{k.group}, Resources: []string{k.resource}, Verbs: vs})
		}
		sort.Slice(out, func(i, j int) bool {
			a, b := out[i], out[j]
			return a.APIGroups[0] < b.APIGroups[0] || a.APIGroups[0] == b.APIGroups[0] && a.Resources[0] < b.Resources[0]
		})
		return out
	}
	return rbacRules{ClusterRules: toRules(cluster), NamespaceRules: toRules(inNamespace)}
}

// writeRules rewrites the chart's rules file, keeping its header comment.
func writeRules(t *testing.T, path string, rules rbacRules) {
	t.Helper()
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	var header strings.Builder
	for _, line := range strings.SplitAfter(string(old), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		header.WriteString(line)
	}
	body, err := yaml.Marshal(rules)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte(header.String()), body...), 0o644))
}

func readRules(t *testing.T, path string) rbacRules {
	t.Helper()
	var r rbacRules
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(data, &r))
	return r
}

// unionRules merges two rule sets, one rule per scope, group and resource.
func unionRules(t *testing.T, a, b rbacRules) rbacRules {
	t.Helper()
	var events []auditEvent
	for _, r := range []rbacRules{a, b} {
		for scope, rules := range map[string][]rbacRule{"cluster": r.ClusterRules, "namespace": r.NamespaceRules} {
			for _, rule := range rules {
				for _, g := range rule.APIGroups {
					for _, res := range rule.Resources {
						for _, v := range rule.Verbs {
							e := auditEvent{Verb: v}
							resource, sub, _ := strings.Cut(res, "/")
							e.ObjectRef = &struct {
								Resource    string `json:"resource"`
								Subresource string `json:"subresource"`
								Namespace   string `json:"namespace"`
								APIGroup    string `json:"apiGroup"`
							}{Resource: resource, Subresource: sub, APIGroup: g}
							if scope == "namespace" {
								e.ObjectRef.Namespace = chartNamespace
							}
							events = append(events, e)
						}
					}
				}
			}
		}
	}
	return rulesFromAudit(t, events, chartNamespace)
}
