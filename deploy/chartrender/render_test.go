package chartrender

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite testdata/e2e-chart.golden.yaml")

const (
	chartDir    = "../../charts/napkit"
	rulesFile   = "../../charts/napkit/rbac/rules.yaml"
	crdSource   = "../../examples/controller/crds"
	flagsGolden = "../../examples/controller/internal/app/testdata/flags.golden"
	e2eGolden   = "testdata/e2e-chart.golden.yaml"
)

func renderWith(t *testing.T, release, namespace string, valueFiles ...string) []*unstructured.Unstructured {
	t.Helper()
	values := map[string]any{}
	for _, f := range valueFiles {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		v := map[string]any{}
		require.NoError(t, sigsyaml.Unmarshal(data, &v), f)
		for k, val := range v {
			values[k] = val
		}
	}
	_, objs, err := Render(context.Background(), Options{ChartDir: chartDir, ReleaseName: release, Namespace: namespace, Values: values})
	require.NoError(t, err)
	return objs
}

func TestRenderDefaultValues(t *testing.T) {
	objs := renderWith(t, "napkit", "napkit")
	assert.Equal(t, []string{
		"ClusterRole/napkit", "ClusterRoleBinding/napkit",
		"CustomResourceDefinition/aksnodeclasses.karpenter.azure.com", "CustomResourceDefinition/nodeclaims.karpenter.sh",
		"CustomResourceDefinition/nodepools.karpenter.sh",
		"Deployment/napkit", "PodDisruptionBudget/napkit", "Role/napkit", "RoleBinding/napkit",
		"Service/napkit-metrics", "ServiceAccount/napkit",
	}, Kinds(objs))
	dep := Find(objs, "Deployment", "napkit")
	spec := podSpec(t, dep)
	replicas, _, _ := unstructured.NestedFieldNoCopy(dep.Object, "spec", "replicas")
	assert.Equal(t, "2", fmt.Sprint(replicas))
	assert.Equal(t, "system-cluster-critical", spec["priorityClassName"])
	assert.Equal(t, "napkit", spec["serviceAccountName"])
	podLabels, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "template", "metadata", "labels")
	assert.Equal(t, "true", podLabels["azure.workload.identity/use"])
	assert.Contains(t, fmt.Sprint(spec["affinity"]), "key:karpenter.sh/nodepool operator:DoesNotExist")
	assert.Contains(t, fmt.Sprint(spec["tolerations"]), "key:CriticalAddonsOnly operator:Exists")

	c := container(t, dep)
	args := argMap(t, c)
	assert.Equal(t, "true", args["--leader-elect"])
	assert.Equal(t, "napkit", args["--leader-election-namespace"], "the Lease lives in the release namespace")
	assert.Equal(t, ":8080", args["--metrics-addr"])
	assert.Equal(t, ":8081", args["--health-addr"])
	assert.NotContains(t, args, "--simulate", "no simulation by default")
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		got, _, _ := unstructured.NestedString(c, probe, "httpGet", "path")
		assert.Equal(t, path, got, probe)
		port, _, _ := unstructured.NestedString(c, probe, "httpGet", "port")
		assert.Equal(t, "http-health", port, probe)
	}
	// The pod runs as the image's user (the Dockerfile's USER uid:gid).
	dockerfile, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(string(dockerfile))
	require.NotNil(t, user, "the Dockerfile's USER")
	podSC, _ := spec["securityContext"].(map[string]any)
	assert.Equal(t, user[1]+":"+user[2], fmt.Sprintf("%v:%v", podSC["runAsUser"], podSC["runAsGroup"]))
	sc, _, _ := unstructured.NestedMap(c, "securityContext")
	assert.Equal(t, true, sc["runAsNonRoot"])
	assert.Equal(t, true, sc["readOnlyRootFilesystem"])
	assert.Equal(t, false, sc["allowPrivilegeEscalation"])
	assert.Equal(t, "map[drop:[ALL]]", fmt.Sprint(sc["capabilities"]))
	res, _, _ := unstructured.NestedMap(c, "resources")
	assert.NotEmpty(t, res["requests"])
	assert.NotEmpty(t, res["limits"])

	pdb := Find(objs, "PodDisruptionBudget", "")
	maxUnavailable, _, _ := unstructured.NestedFieldNoCopy(pdb.Object, "spec", "maxUnavailable")
	assert.Equal(t, "1", fmt.Sprint(maxUnavailable))
	checkRBAC(t, objs, rbacRelease{fullname: "napkit", namespace: "napkit", nominate: true})
	assert.Equal(t, "predicted", argMap(t, c)["--nominate-pods"], "the controller's default")
	checkNoPlainSecrets(t, objs)
}

// TestRenderNominateOff: with controller.nominatePods off the ClusterRole grants no pods/status
// patch (rules.yaml alone), and the controller is told so.
func TestRenderNominateOff(t *testing.T) {
	_, objs, err := Render(context.Background(), Options{ChartDir: chartDir, ReleaseName: "napkit", Namespace: "napkit",
		Values: map[string]any{"controller": map[string]any{"nominatePods": "off"}}})
	require.NoError(t, err)
	checkRBAC(t, objs, rbacRelease{fullname: "napkit", namespace: "napkit"})
	assert.Equal(t, "off", argMap(t, container(t, Find(objs, "Deployment", "napkit")))["--nominate-pods"])
}

func TestRenderAllOptions(t *testing.T) {
	objs := renderWith(t, "rel", "platform", "all-options.yaml")
	assert.Equal(t, []string{
		"ClusterRole/napkit-full", "ClusterRoleBinding/napkit-full", "ConfigMap/napkit-full-ssh",
		"CustomResourceDefinition/aksnodeclasses.karpenter.azure.com", "CustomResourceDefinition/nodeclaims.karpenter.sh",
		"CustomResourceDefinition/nodepools.karpenter.sh",
		"Deployment/napkit-full", "PodDisruptionBudget/napkit-full", "Role/napkit-full", "Role/napkit-full-system",
		"RoleBinding/napkit-full", "RoleBinding/napkit-full-system", "Service/napkit-full-metrics", "ServiceAccount/napkit-sa", "ServiceMonitor/napkit-full",
	}, Kinds(objs))
	sa := Find(objs, "ServiceAccount", "")
	assert.Equal(t, "11111111-2222-3333-4444-555555555555", sa.GetAnnotations()["azure.workload.identity/client-id"])
	assert.Equal(t, "platform", sa.GetAnnotations()["example.com/owner"])
	dep := Find(objs, "Deployment", "")
	c := container(t, dep)
	image, _, _ := unstructured.NestedString(c, "image")
	assert.Equal(t, "example.azurecr.io/napkit/controller@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", image)
	args := argMap(t, c)
	assert.Equal(t, "/etc/napkit/bootstrap-token/token", args["--bootstrap-token-file"])
	assert.Equal(t, "/etc/napkit/ca/ca.pem", args["--ca-file"])
	assert.Equal(t, "platform", args["--leader-election-namespace"])
	assert.Equal(t, ":9090", args["--metrics-addr"])
	assert.Contains(t, fmt.Sprint(podSpec(t, dep)["volumes"]), "secret:map[defaultMode:256 items:[map[key:token path:token]] secretName:napkit-bootstrap-token]")
	assert.Equal(t, "kube-system", args["--system-namespace"])
	checkRBAC(t, objs, rbacRelease{fullname: "napkit-full", namespace: "platform", systemNamespace: "kube-system", nominate: true})
	assert.Equal(t, "constrained", args["--nominate-pods"])
	assert.Equal(t, "250", args["--nominate-max-unbound"])
	assert.Equal(t, "2000", args["--nominate-max-pending"])
	assert.Equal(t, "64", args["--max-concurrent-launches"])
	assert.Equal(t, "-1", args["--disruption-chain-steps"])
	assert.Equal(t, "true", args["--mark-unneeded-nodes"])
	assert.Equal(t, "true", args["--consolidation-allow-many-to-many"])
	assert.Equal(t, "aksmachineapiheaderbatch", args["--provision-mode"])
	assert.Equal(t, "napkit", args["--aks-machines-pool-name"])
	assert.Equal(t, "rg", args["--cluster-resource-group"])
	assert.Equal(t, "00000000-0000-0000-0000-000000000005", args["--sig-subscription-id"])
	checkNoPlainSecrets(t, objs)

	// Every controller flag gets its value from the chart (the simulation's from simulate.yaml).
	simObjs := renderWith(t, "rel", "platform", "simulate.yaml")
	checkRBAC(t, simObjs, rbacRelease{fullname: "rel-napkit", namespace: "platform", simulate: true, nominate: true})
	sim := argMap(t, container(t, Find(simObjs, "Deployment", "")))
	assert.Equal(t, "true", sim["--simulate"])
	assert.NotContains(t, sim, "--subscription-id", "the simulation takes no Azure settings")
	notValues := map[string]string{"kubeconfig": "in a pod the controller uses its ServiceAccount", "version": "prints and exits",
		"sim-azure-endpoint": "tests only: the scale suite serves the simulated Azure from its own process",
		"pprof-addr":         "a debugging port, opened by hand for a profile, not a release setting"}
	for _, name := range readLines(t, flagsGolden) {
		if notValues[name] != "" {
			continue
		}
		_, inAll := args["--"+name]
		_, inSim := sim["--"+name]
		assert.True(t, inAll || inSim, "the chart has no value for the controller's --%s", name)
	}
}

// The simulation is one replica's: the chart refuses more, saying why.
func TestSimulateRefusesReplicas(t *testing.T) {
	_, _, err := Render(context.Background(), Options{ChartDir: chartDir, ReleaseName: "napkit", Namespace: "napkit",
		Values: map[string]any{"controller": map[string]any{"simulate": true}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "controller.simulate needs replicas: 1")
}

// The CRDs are the controller's embedded ones: symlinks to examples/controller/crds, rendered
// unchanged.
func TestChartCRDsAreTheEmbeddedOnes(t *testing.T) {
	src, err := filepath.Glob(filepath.Join(crdSource, "*.yaml"))
	require.NoError(t, err)
	require.Len(t, src, 3)
	objs := renderWith(t, "napkit", "napkit")
	for _, path := range src {
		link := filepath.Join(chartDir, "crds", filepath.Base(path))
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "%s is a symlink, not a copy", link)
		target, err := filepath.EvalSymlinks(link)
		require.NoError(t, err)
		target, err = filepath.Abs(target)
		require.NoError(t, err)
		want, err := filepath.Abs(path)
		require.NoError(t, err)
		assert.Equal(t, want, target)

		data, err := os.ReadFile(path)
		require.NoError(t, err)
		decoded, err := Decode(string(data))
		require.NoError(t, err)
		require.Len(t, decoded, 1)
		rendered := Find(objs, "CustomResourceDefinition", decoded[0].GetName())
		require.NotNil(t, rendered, decoded[0].GetName())
		assert.Equal(t, decoded[0].Object, rendered.Object)
	}
}

// rbacRelease is what a release's RBAC depends on.
type rbacRelease struct {
	fullname, namespace, systemNamespace string
	simulate                             bool
	// nominate: controller.nominatePods is not off (the default is predicted), which adds
	// pods/status patch (the chart's template, not rules.yaml: off needs none).
	nominate bool
}

// ruleSets is charts/napkit/rbac/rules.yaml.
type ruleSets struct {
	ClusterRules             []map[string]any `json:"clusterRules"`
	NamespaceRules           []map[string]any `json:"namespaceRules"`
	SystemNamespaceRules     []map[string]any `json:"systemNamespaceRules"`
	SimulationRules          []map[string]any `json:"simulationRules"`
	SimulationNodeLeaseRules []map[string]any `json:"simulationNodeLeaseRules"`
}

// The rendered RBAC is exactly charts/napkit/rbac/rules.yaml, the set the e2e audit derives: the
// controller's cluster rules in its ClusterRole, the Lease only in the release namespace's Role,
// the maintenance-window ConfigMap only in the system namespace's Role (none without
// --system-namespace), the simulated kubelets' rules only under --simulate; no wildcard, each
// role bound to the chart's ServiceAccount only.
func checkRBAC(t *testing.T, objs []*unstructured.Unstructured, r rbacRelease) {
	t.Helper()
	var want ruleSets
	data, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	require.NoError(t, sigsyaml.UnmarshalStrict(data, &want))
	for _, set := range [][]map[string]any{want.ClusterRules, want.NamespaceRules, want.SystemNamespaceRules, want.SimulationRules, want.SimulationNodeLeaseRules} {
		require.NotEmpty(t, set)
	}
	wantRoles := map[string][]string{
		"ClusterRole " + r.fullname:              ruleStrings(want.ClusterRules),
		"Role " + r.namespace + "/" + r.fullname: ruleStrings(want.NamespaceRules),
	}
	if r.nominate {
		key := "ClusterRole " + r.fullname
		wantRoles[key] = append(wantRoles[key], `"" pods/status patch`)
		slices.Sort(wantRoles[key])
	}
	if r.systemNamespace != "" {
		wantRoles["Role "+r.systemNamespace+"/"+r.fullname+"-system"] = ruleStrings(want.SystemNamespaceRules)
	}
	if r.simulate {
		wantRoles["ClusterRole "+r.fullname+"-simulation"] = ruleStrings(want.SimulationRules)
		wantRoles["Role kube-node-lease/"+r.fullname+"-simulation"] = ruleStrings(want.SimulationNodeLeaseRules)
	}
	gotRoles := map[string][]string{}
	for _, o := range objs {
		if o.GetKind() == "ClusterRole" || o.GetKind() == "Role" {
			gotRoles[roleKey(o.GetKind(), o.GetNamespace(), o.GetName())] = ruleStrings(rulesOf(o))
		}
	}
	assert.Equal(t, wantRoles, gotRoles)
	for _, r := range gotRoles["ClusterRole "+r.fullname] {
		assert.NotContains(t, r, "leases", "leases only in the Role")
		assert.NotContains(t, r, "configmaps", "ConfigMaps only in the system namespace's Role")
	}
	for _, rules := range gotRoles {
		for _, r := range rules {
			assert.NotContains(t, r, "*", "no wildcard in %s", r)
			assert.NotContains(t, r, "secrets", "the controller reads no Secret")
		}
	}
	sa := Find(objs, "ServiceAccount", "")
	bound := map[string]bool{}
	for _, b := range objs {
		if b.GetKind() != "ClusterRoleBinding" && b.GetKind() != "RoleBinding" {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		require.Len(t, subjects, 1)
		assert.Equal(t, sa.GetName(), subjects[0].(map[string]any)["name"], b.GetName())
		assert.Equal(t, r.namespace, subjects[0].(map[string]any)["namespace"], b.GetName())
		kind, _, _ := unstructured.NestedString(b.Object, "roleRef", "kind")
		name, _, _ := unstructured.NestedString(b.Object, "roleRef", "name")
		bound[roleKey(kind, b.GetNamespace(), name)] = true
	}
	assert.Equal(t, len(wantRoles), len(bound), "one binding per role")
	for key := range wantRoles {
		assert.True(t, bound[key], "%s is bound", key)
	}
}

func roleKey(kind, namespace, name string) string {
	if kind == "ClusterRole" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

var (
	tokenPattern = regexp.MustCompile(`\b[a-z0-9]{6}\.[a-z0-9]{16}\b`)
	secretKey    = regexp.MustCompile(`(?i)token|secret|password|credential`)
)

// checkNoPlainSecrets: no Secret object, no env value under a secret-like name, no bootstrap token
// anywhere, and no private key.
func checkNoPlainSecrets(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		assert.NotEqual(t, "Secret", o.GetKind(), "the chart renders no Secret")
		walkStrings(o.Object, "", func(path, s string) {
			assert.False(t, tokenPattern.MatchString(s), "%s %s: %s holds a bootstrap token", o.GetKind(), o.GetName(), path)
			assert.NotContains(t, s, "PRIVATE KEY", "%s %s: %s", o.GetKind(), o.GetName(), path)
		})
	}
	env, _, _ := unstructured.NestedSlice(container(t, Find(objs, "Deployment", "")), "env")
	for _, e := range env {
		m := e.(map[string]any)
		if secretKey.MatchString(fmt.Sprint(m["name"])) {
			assert.NotContains(t, m, "value", "env %s must come from a Secret", m["name"])
		}
	}
}

// all-options.yaml (with simulate.yaml) sets every value values.yaml has, so the render test sees
// every template branch: a value added to the chart without a test case fails here.
func TestAllOptionsSetsEveryValue(t *testing.T) {
	leaves := func(file string) map[string]bool {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		v := map[string]any{}
		require.NoError(t, sigsyaml.Unmarshal(data, &v))
		out := map[string]bool{}
		collectLeaves(v, "", out)
		return out
	}
	set := leaves(filepath.Join("testdata", "all-options.yaml"))
	for k := range leaves(filepath.Join("testdata", "simulate.yaml")) {
		set[k] = true
	}
	for path := range leaves(filepath.Join(chartDir, "values.yaml")) {
		covered := set[path]
		for k := range set {
			covered = covered || strings.HasPrefix(k, path+".") || strings.HasPrefix(k, path+"[")
		}
		assert.True(t, covered, "testdata/all-options.yaml does not set %s", path)
	}
}

// collectLeaves records the path of every scalar, and of every empty map or list (whose entries
// are the user's), under v.
func collectLeaves(v any, path string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[path] = true
		}
		for k, val := range x {
			collectLeaves(val, strings.TrimPrefix(path+"."+k, "."), out)
		}
	case []any:
		out[path] = true // a list is one value: any entries set it
	default:
		out[path] = true
	}
}

// values.yaml has no place for a secret's value: every secret-like key holds only a reference.
func TestValuesHoldNoSecrets(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	require.NoError(t, err)
	values := map[string]any{}
	require.NoError(t, sigsyaml.Unmarshal(data, &values))
	refs := 0
	walkStrings(values, "", func(path, _ string) {
		last := path[strings.LastIndex(path, ".")+1:]
		parent := strings.TrimSuffix(path, "."+last)
		if secretKey.MatchString(parent) {
			assert.Contains(t, []string{"secretName", "key"}, last, "%s: a secret-like value must be a Secret reference", path)
			refs++
			return
		}
		assert.False(t, secretKey.MatchString(last), "%s looks like a secret value", path)
	})
	assert.Equal(t, 2, refs, "cluster.bootstrapToken.secretName and .key")
}

// The e2e suite applies the chart from this golden file (it cannot import Helm without adding it to
// the examples module), so the file must be what the chart renders for README's install: every
// object but the CRDs, which the e2e suite takes from their one source, the controller's embedded
// files; plus the RBAC the chart adds under controller.simulate, since the e2e suite runs the
// simulated kubelets under the same ServiceAccount.
func TestE2EGoldenIsTheRenderedChart(t *testing.T) {
	objs := renderWith(t, "napkit", "napkit", "e2e.yaml")
	checkRBAC(t, objs, rbacRelease{fullname: "napkit", namespace: "napkit", systemNamespace: "kube-system", nominate: true})
	var keep []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			keep = append(keep, o)
		}
	}
	for _, o := range renderWith(t, "napkit", "napkit", "e2e.yaml", "simulate.yaml") {
		if strings.HasSuffix(o.GetName(), "-simulation") {
			keep = append(keep, o)
		}
	}
	checkRBAC(t, keep, rbacRelease{fullname: "napkit", namespace: "napkit", systemNamespace: "kube-system", simulate: true, nominate: true})
	assert.Equal(t, []string{
		"ClusterRole/napkit", "ClusterRole/napkit-simulation", "ClusterRoleBinding/napkit", "ClusterRoleBinding/napkit-simulation",
		"ConfigMap/napkit-ssh", "Deployment/napkit", "PodDisruptionBudget/napkit",
		"Role/napkit", "Role/napkit-simulation", "Role/napkit-system", "RoleBinding/napkit", "RoleBinding/napkit-simulation",
		"RoleBinding/napkit-system", "Service/napkit-metrics", "ServiceAccount/napkit",
	}, Kinds(keep))
	got, err := Encode(keep)
	require.NoError(t, err)
	got = append([]byte("# Generated by deploy/chartrender (go test -run TestE2EGoldenIsTheRenderedChart -update); do not edit.\n"), got...)
	if *update {
		require.NoError(t, os.WriteFile(e2eGolden, got, 0o644))
	}
	want, err := os.ReadFile(e2eGolden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "run go test -run TestE2EGoldenIsTheRenderedChart -update")
}

func podSpec(t *testing.T, dep *unstructured.Unstructured) map[string]any {
	t.Helper()
	require.NotNil(t, dep)
	spec, ok, err := unstructured.NestedMap(dep.Object, "spec", "template", "spec")
	require.True(t, ok && err == nil)
	return spec
}

func container(t *testing.T, dep *unstructured.Unstructured) map[string]any {
	t.Helper()
	cs, _ := podSpec(t, dep)["containers"].([]any)
	require.Len(t, cs, 1)
	return cs[0].(map[string]any)
}

// argMap maps each --flag=value (or bare --flag: "true") of the container.
func argMap(t *testing.T, c map[string]any) map[string]string {
	t.Helper()
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	out := map[string]string{}
	for _, a := range args {
		name, value, found := strings.Cut(a, "=")
		if !found {
			value = "true"
		}
		_, dup := out[name]
		require.False(t, dup, "%s given twice", name)
		out[name] = value
	}
	return out
}

func rulesOf(o *unstructured.Unstructured) []map[string]any {
	rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
	out := make([]map[string]any, 0, len(rules))
	for _, r := range rules {
		out = append(out, r.(map[string]any))
	}
	return out
}

// ruleStrings expands rules to sorted "group resource verb [names]" lines.
func ruleStrings(rules []map[string]any) []string {
	var out []string
	for _, r := range rules {
		names := ""
		if n, ok := r["resourceNames"].([]any); ok {
			names = fmt.Sprint(n)
		}
		for _, g := range r["apiGroups"].([]any) {
			for _, res := range r["resources"].([]any) {
				for _, v := range r["verbs"].([]any) {
					out = append(out, strings.TrimSpace(fmt.Sprintf("%q %s %s %s", g, res, v, names)))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func walkStrings(v any, path string, fn func(path, s string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			walkStrings(val, path+"."+k, fn)
		}
	case []any:
		for i, val := range x {
			walkStrings(val, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case string:
		fn(path, x)
	default:
		fn(path, fmt.Sprint(x))
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); line != "" {
			out = append(out, line)
		}
	}
	require.NoError(t, s.Err())
	require.NotEmpty(t, out)
	return out
}
