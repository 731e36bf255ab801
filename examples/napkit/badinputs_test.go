package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// badInput is one row of TestBadInputs: a command line (args, with $F the path of a file holding
// manifest, {empty} an empty directory and {dir} their directory; stdin for -f -). In want, $DIR
// stands for that directory. or a library call, and what must come back.
type badInput struct {
	name string
	// A command line and its exit code.
	args     []string
	manifest string
	stdin    string
	exit     int
	// A library call and the class of its error: errors.Is(err, is) and, when as is set (a pointer
	// to a typed-error pointer), errors.As(err, as).
	call func(t *testing.T) error
	is   error
	as   any
	// want are substrings of the message: the file and document (or object), the field path and the
	// offending value.
	want []string
}

// TestBadInputs is napkit's bad-input contract: every input the CLI or the library refuses is refused
// with its class (exit code, sentinel or type) and a message naming where, which field and what value.
// Nothing here is an answer computed from ignored input.
func TestBadInputs(t *testing.T) {
	rows := slicesConcat(manifestRows(t), flagRows(), bootstrapRows(), consolidateRows(t), libraryManifestRows(),
		librarySnapshotRows(), libraryCatalogueRows(), librarySolveRows(t), libraryDecideRows(t), libraryBootstrapRows(t))
	require.GreaterOrEqual(t, len(rows), 60)
	seen := map[string]bool{}
	for _, row := range rows {
		require.False(t, seen[row.name], "duplicate row name %q", row.name)
		seen[row.name] = true
		t.Run(row.name, func(t *testing.T) {
			if row.call != nil {
				checkLibraryRow(t, row)
				return
			}
			checkCLIRow(t, row)
		})
	}
}

func checkCLIRow(t *testing.T, row badInput) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.yaml")
	require.NoError(t, os.WriteFile(file, []byte(row.manifest), 0o600))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	args := make([]string, len(row.args))
	for i, a := range row.args {
		args[i] = strings.NewReplacer("$F", file, "{empty}", empty, "{dir}", dir).Replace(a)
	}
	var stdout, stderr bytes.Buffer
	code := runIO(args, strings.NewReader(row.stdin), &stdout, &stderr)
	msg := stderr.String()
	assert.Equal(t, row.exit, code, msg)
	assert.Empty(t, stdout.String(), "a refused command prints no answer")
	errLines := 0
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "napkit ") || strings.HasPrefix(line, "napkit:") {
			errLines++
		}
	}
	if len(args) > 0 {
		assert.Equal(t, 1, errLines, "the error is printed once:\n%s", msg)
	}
	for _, w := range row.want {
		assert.Contains(t, strings.ReplaceAll(msg, dir, "$DIR"), w)
	}
	assert.NotContains(t, msg, "0123456789abcdef", "never the bootstrap token")
}

func checkLibraryRow(t *testing.T, row badInput) {
	err := row.call(t)
	require.Error(t, err)
	assert.ErrorIs(t, err, row.is)
	if row.as != nil {
		assert.True(t, errors.As(err, row.as), "errors.As(%T) on %v", row.as, err)
	}
	for _, w := range row.want {
		assert.Contains(t, err.Error(), w)
	}
}

func slicesConcat(groups ...[]badInput) []badInput {
	var out []badInput
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// A Deployment for the plan rows; %s is replaced by lines under the container.
const deploymentDoc = `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: nginx
`

func withLines(doc string, lines ...string) string { return doc + strings.Join(lines, "\n") + "\n" }

// manifestRows read manifests through `napkit plan`: versions, empty inputs, bad values.
func manifestRows(t *testing.T) []badInput {
	head := poolAndClass(t, "testdata/consolidate-mixed.yaml")
	plan := []string{"plan", "-f", "$F"}
	doc3 := "$DIR/in.yaml document 3"
	return []badInput{
		{name: "v1beta1 NodePool", args: plan, exit: 1,
			manifest: "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\n",
			want:     []string{"$DIR/in.yaml document 1 (line 1)", `NodePool "old"`, `apiVersion "karpenter.sh/v1beta1"`, "v1-migration"}},
		{name: "v1alpha5 Provisioner", args: plan, exit: 1,
			manifest: "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: old}\n",
			want:     []string{"$DIR/in.yaml document 1", `apiVersion "karpenter.sh/v1alpha5"`, "karpenter.sh/v1 NodePool"}},
		{name: "v1alpha2 AKSNodeClass", args: plan, exit: 1,
			manifest: "apiVersion: karpenter.azure.com/v1alpha2\nkind: AKSNodeClass\nmetadata: {name: default}\n",
			want:     []string{"$DIR/in.yaml document 1", `apiVersion "karpenter.azure.com/v1alpha2"`, "v1beta1"}},
		{name: "empty file", args: plan, exit: 1, manifest: "",
			want: []string{"$DIR/in.yaml", "no Kubernetes objects"}},
		{name: "only comments", args: plan, exit: 1, manifest: "# nothing\n---\n",
			want: []string{"$DIR/in.yaml", "no documents"}},
		{name: "directory without manifests", args: []string{"plan", "-f", "{empty}"}, exit: 1,
			want: []string{"$DIR/empty", "no *.yaml"}},
		{name: "empty standard input", args: []string{"plan", "-f", "-"}, exit: 1, stdin: "",
			want: []string{"<stdin>", "no Kubernetes objects"}},
		{name: "only unknown kinds", args: plan, exit: 1,
			manifest: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
			want:     []string{"$DIR/in.yaml document 1 (line 1)", "example.com/v1/Widget", "no Kubernetes objects"}},
		{name: "cpu abc", args: plan, exit: 1,
			manifest: withLines(head+deploymentDoc, "          resources: {requests: {cpu: abc}}"),
			want:     []string{doc3, "Deployment shop/web", "spec.template.spec.containers[0].resources.requests.cpu", `"abc"`}},
		{name: "memory 1.5.3Gi in a Pod", args: plan, exit: 1,
			manifest: head + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: main\n      resources: {limits: {memory: 1.5.3Gi}}\n",
			want:     []string{doc3, `Pod "p"`, "spec.containers[0].resources.limits.memory", `"1.5.3Gi"`}},
		{name: "negative request names the container", args: plan, exit: 1,
			manifest: withLines(head+deploymentDoc, "          resources: {requests: {cpu: \"-1\"}}"),
			want:     []string{doc3, "spec.template.spec.containers[0].resources.requests.cpu", "container app", `"-1"`}},
		{name: "negative init container limit", args: plan, exit: 1,
			manifest: head + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n    - name: setup\n      resources: {limits: {memory: -5Mi}}\n  containers:\n    - name: main\n",
			want:     []string{doc3, "spec.initContainers[0].resources.limits.memory", "container setup", `"-5Mi"`}},
		{name: "quantity with a huge exponent", args: plan, exit: 1,
			manifest: withLines(head+deploymentDoc, "          resources: {requests: {cpu: \"1e4222222200\"}}"),
			want:     []string{doc3, "spec.template.spec.containers[0].resources.requests.cpu", `"1e4222222200"`, "exponent"}},
		{name: "ten million replicas", args: plan, exit: 1,
			manifest: strings.Replace(head+deploymentDoc, "replicas: 2", "replicas: 10000000", 1),
			want:     []string{doc3, "Deployment shop/web", "spec.replicas", "10000000", "more than the 100000 allowed", "--max-pods"}},
		{name: "replicas over --max-pods in all", args: []string{"plan", "-f", "$F", "--max-pods", "3"}, exit: 1,
			manifest: head + deploymentDoc + strings.Replace(deploymentDoc, "name: web,", "name: api,", 1),
			want:     []string{"$DIR/in.yaml document", "Deployment shop/", "spec.replicas", "4 in all", "more than the 3 allowed"}},
		{name: "Job parallelism over --max-pods", args: []string{"consolidate", "--now", goldenNow, "-f", "$F", "--max-pods", "5"}, exit: 1,
			manifest: head + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n  parallelism: 6\n  template:\n    spec:\n      containers: [{name: main}]\n",
			want:     []string{doc3, `Job "batch"`, "spec.parallelism", "6 pods", "more than the 5 allowed"}},
		{name: "replicas not a number", args: plan, exit: 1,
			manifest: strings.Replace(head+deploymentDoc, "replicas: 2", "replicas: many", 1),
			want:     []string{doc3, "spec.replicas", `"many"`}},
		{name: "replicas beyond int32", args: plan, exit: 1,
			manifest: strings.Replace(head+deploymentDoc, "replicas: 2", "replicas: 99999999999", 1),
			want:     []string{doc3, "spec.replicas", "99999999999"}},
		{name: "negative replicas", args: plan, exit: 1,
			manifest: strings.Replace(head+deploymentDoc, "replicas: 2", "replicas: -3", 1),
			want:     []string{doc3, "spec.replicas", "-3"}},
		{name: "Job parallelism is spec.parallelism", args: plan, exit: 1,
			manifest: head + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n  parallelism: -2\n  template:\n    spec:\n      containers: [{name: main}]\n",
			want:     []string{doc3, `Job "batch"`, "spec.parallelism", "-2"}},
		{name: "misspelt field in a Deployment", args: plan, exit: 1,
			manifest: withLines(head+deploymentDoc, "      nodeSelecter: {disk: ssd}"),
			want:     []string{doc3, "Deployment shop/web", `unknown field "spec.template.spec.nodeSelecter"`}},
		{name: "misspelt field in a NodePool", args: plan, exit: 1,
			manifest: strings.Replace(head, "requirements:", "requirement:", 1),
			want:     []string{"$DIR/in.yaml document 1", `NodePool "general-purpose"`, `unknown field "spec.template.spec.requirement"`}},
		{name: "NodePool capacity type value", args: plan, exit: 1,
			manifest: strings.Replace(head, `values: ["on-demand"]`, `values: ["cheap"]`, 1),
			want:     []string{"$DIR/in.yaml document 1", "spec.template.spec.requirements[1].values[0]", `"cheap"`}},
		{name: "NodePool defined twice", args: plan, exit: 1,
			manifest: head + "---\n" + strings.Split(head, "\n---\n")[0][len("---\n"):] + "\n",
			want:     []string{"$DIR/in.yaml document 3", `NodePool "general-purpose" is defined twice`, "first at $DIR/in.yaml document 1"}},
		{name: "YAML syntax", args: plan, exit: 1, manifest: head + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: [}\n",
			want: []string{doc3, "line 38", "did not find expected node content"}},
		{name: "document not an object", args: plan, exit: 1, manifest: head + "---\njust words\n",
			want: []string{doc3, "document is not an object"}},
		{name: "missing file", args: []string{"plan", "-f", "{dir}/nope.yaml"}, exit: 1,
			want: []string{"$DIR/nope.yaml", "no such file"}},
		{name: "NodePool without its AKSNodeClass", args: plan, exit: 1,
			manifest: strings.Split(head, "\n---\n")[0] + "\n",
			want:     []string{"NodePool general-purpose", "spec.template.spec.nodeClassRef.name", `AKSNodeClass "default"`}},
		{name: "Node capacity quantity", args: plan, exit: 1,
			manifest: head + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: lots}}\n",
			want:     []string{doc3, `Node "n1"`, "status.capacity.cpu", `"lots"`}},
		{name: "PVC storage quantity", args: plan, exit: 1,
			manifest: head + "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {resources: {requests: {storage: 10 GB}}}\n",
			want:     []string{doc3, "spec.resources.requests.storage", `"10 GB"`}},
		{name: "DaemonSet extended resource", args: plan, exit: 1,
			manifest: head + "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    spec:\n      containers:\n        - name: agent\n          resources: {requests: {nvidia.com/gpu: one}}\n",
			want:     []string{doc3, "spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]", `"one"`}},
	}
}

// flagRows are command-line mistakes: exit 2, printed once, naming the flag and value.
func flagRows() []badInput {
	return []badInput{
		{name: "no command", args: nil, exit: 2, want: []string{"usage: napkit"}},
		{name: "unknown command", args: []string{"frobnicate"}, exit: 2, want: []string{`unknown command "frobnicate"`}},
		{name: "plan without -f", args: []string{"plan"}, exit: 2, want: []string{"-f: at least one manifest file is required"}},
		{name: "plan -o png", args: []string{"plan", "-f", "$F", "-o", "png"}, exit: 2, want: []string{"-o: want json, yaml, table, svg", `"png"`}},
		{name: "plan unknown flag", args: []string{"plan", "--frob"}, exit: 2, want: []string{"flag provided but not defined: -frob"}},
		{name: "plan stray argument", args: []string{"plan", "-f", "$F", "stray"}, exit: 2, want: []string{`unexpected arguments ["stray"]`}},
		{name: "plan --max-pods 0", args: []string{"plan", "-f", "$F", "--max-pods", "0"}, exit: 2, want: []string{"--max-pods: must be at least 1, got 0"}},
		{name: "consolidate --max-pods -5", args: []string{"consolidate", "-f", "$F", "--max-pods", "-5"}, exit: 2, want: []string{"--max-pods: must be at least 1, got -5"}},
		{name: "plan --seed abc", args: []string{"plan", "--seed", "abc"}, exit: 2, want: []string{`invalid value "abc" for flag -seed`}},
		{name: "plan --nodeclass is not a plan flag", args: []string{"plan", "-f", "$F", "--nodeclass", "x.yaml"}, exit: 2,
			want: []string{"flag provided but not defined: -nodeclass"}},
		{name: "stdin twice", args: []string{"plan", "-f", "-", "-f", "-"}, exit: 2, want: []string{"-f -", "only once"}},
		{name: "consolidate without -f", args: []string{"consolidate"}, exit: 2, want: []string{"-f: at least one manifest file is required"}},
		{name: "consolidate -o png", args: []string{"consolidate", "-f", "$F", "-o", "png"}, exit: 2, want: []string{"-o: want json, yaml, table", `"png"`}},
		{name: "consolidate --now yesterday", args: []string{"consolidate", "-f", "$F", "--now", "yesterday"}, exit: 2,
			want: []string{"--now: want an RFC 3339 time", `"yesterday"`}},
		{name: "consolidate --max-commands -1", args: []string{"consolidate", "-f", "$F", "--max-commands", "-1"}, exit: 2,
			want: []string{"--max-commands: must not be negative, got -1"}},
		{name: "instance-types -o png", args: []string{"instance-types", "-o", "png"}, exit: 2, want: []string{"-o: want table, json, yaml", `"png"`}},
		{name: "instance-types --region mars", args: []string{"instance-types", "--region", "mars"}, exit: 2,
			want: []string{`--region "mars"`, "eastus, westus2"}},
		{name: "instance-types --network-plugin kubenet", args: []string{"instance-types", "--network-plugin", "kubenet"}, exit: 2,
			want: []string{`--network-plugin "kubenet"`, "not supported"}},
		{name: "instance-types --network-dataplane", args: []string{"instance-types", "--network-dataplane", "calico"}, exit: 2,
			want: []string{`--network-dataplane "calico"`, "azure, cilium"}},
		{name: "instance-types --catalog missing", args: []string{"instance-types", "--catalog", "{dir}/none.json"}, exit: 1,
			want: []string{"--catalog", "$DIR/none.json", "no such file"}},
		{name: "instance-types --catalog not JSON", args: []string{"instance-types", "--catalog", "$F"}, manifest: "{", exit: 1,
			want: []string{"--catalog $DIR/in.yaml", "bad SKU list"}},
		{name: "instance-types --prices header", args: []string{"instance-types", "--prices", "$F"}, manifest: "sku,price\n", exit: 1,
			want: []string{"--prices $DIR/in.yaml", "line 1", `"sku,price"`}},
		{name: "instance-types --nodeclass two classes", args: []string{"instance-types", "--nodeclass", "$F"}, exit: 2,
			manifest: "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: a}\n---\napiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: b}\n",
			want:     []string{"--nodeclass $DIR/in.yaml", "want exactly one AKSNodeClass, found 2"}},
		{name: "instance-types --nodeclass v1alpha2", args: []string{"instance-types", "--nodeclass", "$F"}, exit: 1,
			manifest: "apiVersion: karpenter.azure.com/v1alpha2\nkind: AKSNodeClass\nmetadata: {name: a}\n",
			want:     []string{"--nodeclass", "$DIR/in.yaml document 1", `"karpenter.azure.com/v1alpha2"`}},
		{name: "instance-types --nodeclass bad maxPods", args: []string{"instance-types", "--nodeclass", "$F"}, exit: 1,
			manifest: "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: a}\nspec: {maxPods: 5000}\n",
			want:     []string{"$DIR/in.yaml document 1", "spec.maxPods", "5000"}},
	}
}

func bootstrapRows() []badInput {
	args := func(extra ...string) []string {
		return append([]string{"bootstrap", "-f", seedManifests, "--nodepool", "general-purpose", "--instance-type", "Standard_D2s_v3"}, extra...)
	}
	return []badInput{
		{name: "bootstrap zone of no region", args: args("--zone", "eastus-9"), exit: 2, want: []string{`--zone "eastus-9"`, "eastus-1, eastus-2, eastus-3"}},
		{name: "bootstrap zone of another region", args: args("--zone", "westus2-1"), exit: 2, want: []string{`--zone "westus2-1"`, "no offering"}},
		{name: "bootstrap capacity type reserved", args: args("--capacity-type", "reserved"), exit: 2, want: []string{`--capacity-type "reserved"`, "on-demand or spot"}},
		{name: "bootstrap capacity type the pool excludes", args: args("--zone", "eastus-1", "--capacity-type", "spot"), exit: 2,
			want: []string{`--capacity-type "spot"`, "NodePool general-purpose excludes it", "karpenter.sh/capacity-type In [on-demand]"}},
		{name: "bootstrap instance type the pool excludes", args: []string{"bootstrap", "-f", seedManifests, "--nodepool", "general-purpose", "--instance-type", "Standard_E2s_v3"},
			exit: 2, want: []string{`--instance-type "Standard_E2s_v3"`, "karpenter.azure.com/sku-family In [D]"}},
		{name: "bootstrap unknown size", args: []string{"bootstrap", "-f", seedManifests, "--nodepool", "general-purpose", "--instance-type", "Standard_Nope_v9"},
			exit: 2, want: []string{`--instance-type: "Standard_Nope_v9"`, "eastus"}},
		{name: "bootstrap unknown pool", args: []string{"bootstrap", "-f", seedManifests, "--nodepool", "gpu", "--instance-type", "Standard_D2s_v3"},
			exit: 2, want: []string{`--nodepool: no NodePool "gpu"`}},
		{name: "bootstrap without --nodepool", args: []string{"bootstrap", "-f", seedManifests, "--instance-type", "Standard_D2s_v3"}, exit: 2,
			want: []string{"--nodepool is required"}},
		{name: "bootstrap without --instance-type", args: []string{"bootstrap", "-f", seedManifests, "--nodepool", "general"}, exit: 2,
			want: []string{"--instance-type is required"}},
		{name: "bootstrap without -f", args: []string{"bootstrap", "--nodepool", "x", "--instance-type", "y"}, exit: 2, want: []string{"-f: at least one"}},
		{name: "bootstrap --mode", args: args("--mode", "cloudinit"), exit: 2, want: []string{`--mode "cloudinit"`, "aksscriptless"}},
		{name: "bootstrap --image-version", args: args("--image-version", "latest"), exit: 2, want: []string{`--image-version "latest"`, "dot-separated"}},
		{name: "bootstrap --ca-file missing", args: args("--ca-file", "{dir}/ca.pem"), exit: 1, want: []string{"--ca-file", "$DIR/ca.pem"}},
		{name: "bootstrap -o xml", args: args("-o", "xml"), exit: 2, want: []string{"-o: want json, yaml", `"xml"`}},
		{name: "bootstrap Windows in scriptless mode", args: []string{"bootstrap", "-f", "testdata/windows.yaml", "--nodepool", "win", "--instance-type", "Standard_D2s_v3"},
			exit: 1, want: []string{"Windows"}},
	}
}

func consolidateRows(t *testing.T) []badInput {
	head := poolAndClass(t, "testdata/consolidate-mixed.yaml")
	args := []string{"consolidate", "--now", goldenNow, "-f", "$F"}
	node := func(name, typ, zone, ct string) string {
		return "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels:\n    karpenter.sh/nodepool: general-purpose" +
			"\n    node.kubernetes.io/instance-type: " + typ + "\n    topology.kubernetes.io/zone: \"" + zone +
			"\"\n    karpenter.sh/capacity-type: " + ct + "\n"
	}
	return []badInput{
		{name: "consolidate unknown instance type", args: args, exit: 1, manifest: head + node("n1", "Standard_Bogus_v9", "eastus-1", "on-demand"),
			want: []string{"Node n1", "metadata.labels[node.kubernetes.io/instance-type]", `"Standard_Bogus_v9"`}},
		{name: "consolidate zone of another region", args: args, exit: 1, manifest: head + node("n1", "Standard_D2als_v6", "westus2-1", "on-demand"),
			want: []string{"node n1", "metadata.labels[topology.kubernetes.io/zone]", `"westus2-1"`}},
		{name: "consolidate capacity type", args: args, exit: 1, manifest: head + node("n1", "Standard_D2als_v6", "eastus-1", "reserved"),
			want: []string{"node n1", "metadata.labels[karpenter.sh/capacity-type]", `"reserved"`}},
		{name: "consolidate pod on a missing node", args: args, exit: 1, manifest: head + boundPod("web-0", "ghost"),
			want: []string{"Pod default/web-0", "spec.nodeName", `Node "ghost"`}},
		{name: "consolidate node of a missing pool", args: args, exit: 1, manifest: head + nodeYAML("n1", "other", "eastus-1"),
			want: []string{"Node n1", "metadata.labels[karpenter.sh/nodepool]", `NodePool "other"`}},
		{name: "consolidate node without a zone", args: args, exit: 1, manifest: head + nodeYAML("n1", "general-purpose", ""),
			want: []string{"Node n1", "metadata.labels[topology.kubernetes.io/zone]", "required"}},
		{name: "consolidate malformed PodDisruptionBudget", args: args, exit: 1,
			manifest: head + "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: api\nspec:\n  selector: all\n",
			want:     []string{"$DIR/in.yaml document 3", `PodDisruptionBudget "api"`, "spec.selector", `"all"`}},
		{name: "consolidate PDB maxUnavailable", args: args, exit: 1,
			manifest: head + "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: api\nspec:\n  maxUnavailable: [1]\n",
			want:     []string{"$DIR/in.yaml document 3", "spec.maxUnavailable", "[1]"}},
	}
}

const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
	"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"abc"}}}]}}}}`

func libraryManifestRows() []badInput {
	decode := func(s string) func(*testing.T) error {
		return func(*testing.T) error { _, err := manifest.Decode(strings.NewReader(s), "lib.yaml"); return err }
	}
	return []badInput{
		{name: "manifest.Decode empty", call: decode(""), is: manifest.ErrNoObjects, want: []string{"lib.yaml", "no documents"}},
		{name: "manifest.Decode too large", is: manifest.ErrTooLarge, want: []string{"lib.yaml", "more than 64 bytes"},
			call: func(*testing.T) error {
				_, err := (&manifest.Decoder{MaxBytes: 64}).Decode(strings.NewReader(strings.Repeat("# x\n", 100)), "lib.yaml")
				return err
			}},
		{name: "manifest.Decode v1beta1", call: decode("apiVersion: karpenter.sh/v1beta1\nkind: NodeClaim\nmetadata: {name: c}\n"),
			is: manifest.ErrUnsupportedVersion, as: new(*manifest.DocumentError),
			want: []string{"lib.yaml document 1 (line 1)", `NodeClaim "c"`, `"karpenter.sh/v1beta1"`}},
		{name: "manifest.Decode quantity", call: decode(deploymentJSON), is: manifest.ErrDecode, as: new(*api.FieldError),
			want: []string{"lib.yaml document 1", "Deployment \"web\"", "spec.template.spec.containers[0].resources.requests.cpu", `"abc"`}},
		{name: "manifest.Decode negative overhead", call: decode("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {overhead: {memory: -1Mi}}\n"),
			is: api.ErrInvalid, as: new(*api.FieldError), want: []string{"lib.yaml document 1", "spec.overhead.memory", `"-1Mi"`}},
		{name: "manifest.Decode wrong type", call: decode("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: {name: x}}\n"),
			is: manifest.ErrDecode, as: new(*api.FieldError), want: []string{"lib.yaml document 1", "spec.containers", `{"name":"x"}`}},
		{name: "manifest.DecodeFiles empty directory", is: manifest.ErrNoObjects, want: []string{"no *.yaml"},
			call: func(t *testing.T) error { _, err := manifest.DecodeFiles(t.TempDir()); return err }},
		{name: "manifest.Object.Decode", is: manifest.ErrDecode, as: new(*api.FieldError),
			want: []string{"x.yaml document 4 (line 9)", "spec.template.spec.containers[0].resources.requests.cpu", `"abc"`},
			call: func(*testing.T) error {
				obj := manifest.Object{Kind: manifest.Kind{APIVersion: "apps/v1", Kind: "Deployment"}, Name: "web",
					Position: "x.yaml document 4 (line 9)", JSON: []byte(deploymentJSON)}
				return obj.Decode(&appsv1.Deployment{})
			}},
	}
}

func librarySnapshotRows() []badInput {
	replicas := func(n int32) *int32 { return &n }
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: appsv1.DeploymentSpec{Replicas: replicas(10_000_000)}}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Spec: batchv1.JobSpec{Parallelism: replicas(-1)}}
	return []badInput{
		{name: "snapshot.WorkloadPods ten million", is: snapshot.ErrTooManyPods, want: []string{"Deployment shop/web", "spec.replicas", "10000000", "100000"},
			call: func(*testing.T) error { _, err := snapshot.WorkloadPods([]runtime.Object{deployment}, 0); return err }},
		{name: "snapshot.WorkloadPods negative parallelism", is: snapshot.ErrBadWorkload, want: []string{"Job batch", "spec.parallelism", "-1"},
			call: func(*testing.T) error { _, err := snapshot.WorkloadPods([]runtime.Object{job}, 0); return err }},
	}
}

func libraryCatalogueRows() []badInput {
	build := func(opts instancetype.Options) func(*testing.T) error {
		return func(t *testing.T) error {
			skus, err := instancetype.LoadDefault("eastus")
			require.NoError(t, err)
			_, err = skus.Build(opts)
			return err
		}
	}
	return []badInput{
		{name: "instancetype.Build no region", call: build(instancetype.Options{}), is: instancetype.ErrBadOptions, want: []string{"Region", `""`}},
		{name: "instancetype.Build memory overhead", call: build(instancetype.Options{Region: "eastus", VMMemoryOverheadPercent: 7.5}),
			is: instancetype.ErrBadOptions, want: []string{"VMMemoryOverheadPercent", "7.5"}},
		{name: "instancetype.Build reservation policy", call: build(instancetype.Options{Region: "eastus", ReservationPolicy: "generous"}),
			is: instancetype.ErrBadOptions, want: []string{"ReservationPolicy", `"generous"`}},
		{name: "instancetype.ReadSKUs", is: instancetype.ErrBadSKUList, want: []string{"bad SKU list"},
			call: func(*testing.T) error { _, err := instancetype.ReadSKUs([]byte(`{"value": 3}`), "eastus"); return err }},
		{name: "instancetype.ReadSKUs null entry", is: instancetype.ErrBadSKUList, want: []string{"entry 1", "null"},
			call: func(*testing.T) error {
				_, err := instancetype.ReadSKUs([]byte(`{"value": [{"name": "Standard_A1"}, null]}`), "eastus")
				return err
			}},
	}
}

// eastusPool is the seed's general-purpose NodePool (on-demand, D family) and its catalogue.
func eastusPool(t *testing.T) (*api.NodePool, *catalogue) {
	t.Helper()
	set, err := manifest.DecodeFiles(seedManifests)
	require.NoError(t, err)
	pool := set.NodePool("general-purpose")
	require.NotNil(t, pool)
	cat := catalogueFlags{region: "eastus", network: api.DefaultClusterNetwork()}
	built, err := cat.loadFor(set.NodeClass(pool.Spec.Template.Spec.NodeClassRef.Name))
	require.NoError(t, err)
	return pool, built
}

func podRequesting(cpu string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
}

func librarySolveRows(t *testing.T) []badInput {
	solve := func(edit func(*provisioner.Input)) func(*testing.T) error {
		return func(t *testing.T) error {
			pool, cat := eastusPool(t)
			in := provisioner.Input{Pods: []*corev1.Pod{podRequesting("1")},
				NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}}}
			edit(&in)
			_, err := provisioner.Solve(in)
			return err
		}
	}
	return []badInput{
		{name: "provisioner.Solve negative request", is: provisioner.ErrInvalidInput, as: new(*api.FieldError),
			want: []string{"Pod default/p", "spec.containers[0].resources.requests.cpu", "container app", `"-1"`},
			call: solve(func(in *provisioner.Input) { in.Pods = []*corev1.Pod{podRequesting("-1")} })},
		{name: "provisioner.Solve maxSkew", is: provisioner.ErrInvalidInput, as: new(*api.FieldError),
			want: []string{"Pod default/p", "maxSkew", "got 0"},
			call: solve(func(in *provisioner.Input) {
				in.Pods[0].Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 0, TopologyKey: api.LabelZone,
					WhenUnsatisfiable: corev1.DoNotSchedule}}
			})},
		{name: "provisioner.Solve negative limit", is: provisioner.ErrInvalidInput, want: []string{"NodePool general-purpose", "spec.limits.cpu", "-1"},
			call: solve(func(in *provisioner.Input) {
				pool := *in.NodePools[0].NodePool // a copy: the limits map is replaced, not changed
				pool.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1")}
				in.NodePools[0].NodePool = &pool
			})},
		{name: "provisioner.Solve policy", is: provisioner.ErrInvalidInput, want: []string{"PreferencePolicy", `"Sometimes"`},
			call: solve(func(in *provisioner.Input) { in.Options.PreferencePolicy = "Sometimes" })},
		{name: "provisioner.Solve bound pod", is: provisioner.ErrInvalidInput, want: []string{"Pod default/p", "spec.nodeName", "n1"},
			call: solve(func(in *provisioner.Input) { in.Pods[0].Spec.NodeName = "n1" })},
	}
}

func libraryDecideRows(t *testing.T) []badInput {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	decide := func(labels map[string]string, at time.Time) func(*testing.T) error {
		return func(t *testing.T) error {
			pool, cat := eastusPool(t)
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: labels}}
			_, err := consolidation.Decide(consolidation.Input{Now: at, Nodes: []consolidation.Node{{Node: node, Initialized: true}},
				NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}}})
			return err
		}
	}
	labels := func(zone, ct string) map[string]string {
		return map[string]string{api.LabelNodePool: "general-purpose", api.LabelInstanceType: "Standard_D2s_v3",
			api.LabelZone: zone, api.LabelCapacityType: ct}
	}
	return []badInput{
		{name: "consolidation.Decide zone", call: decide(labels("westus2-1", "on-demand"), now), is: consolidation.ErrInvalidInput,
			as: new(*api.FieldError), want: []string{"node n1", "Nodes[0].Node.metadata.labels[topology.kubernetes.io/zone]", `"westus2-1"`}},
		{name: "consolidation.Decide capacity type", call: decide(labels("eastus-1", "reserved"), now), is: consolidation.ErrInvalidInput,
			want: []string{"node n1", "metadata.labels[karpenter.sh/capacity-type]", `"reserved"`}},
		{name: "consolidation.Decide without a time", call: decide(labels("eastus-1", "on-demand"), time.Time{}), is: consolidation.ErrInvalidInput,
			want: []string{"Now", "0001-01-01"}},
	}
}

func libraryBootstrapRows(t *testing.T) []badInput {
	check := func(typ, zone, ct string) func(*testing.T) error {
		return func(t *testing.T) error {
			pool, cat := eastusPool(t)
			it, ok := cat.Find(typ)
			require.True(t, ok, typ)
			return imagefamily.CheckPlacement(imagefamily.Placement{NodePool: pool, InstanceType: it, Zone: zone, CapacityType: ct})
		}
	}
	generate := func(zone, ct string, mode imagefamily.Mode) func(*testing.T) error {
		return func(t *testing.T) error {
			_, cat := eastusPool(t)
			it, _ := cat.Find("Standard_D2s_v3")
			_, err := imagefamily.Generate(imagefamily.Input{Mode: mode, Shape: imagefamily.ShapeOf(it), Zone: zone, CapacityType: ct,
				Cluster: bootstrap.Cluster{Location: "eastus", KubernetesVersion: "1.33.2"}})
			return err
		}
	}
	return []badInput{
		{name: "imagefamily.CheckPlacement zone", call: check("Standard_D2s_v3", "eastus-9", ""), is: imagefamily.ErrInvalid,
			as: new(*api.FieldError), want: []string{"zone", `"eastus-9"`, "Standard_D2s_v3"}},
		{name: "imagefamily.CheckPlacement capacity type", call: check("Standard_D2s_v3", "eastus-1", "reserved"), is: imagefamily.ErrInvalid,
			want: []string{"capacityType", `"reserved"`}},
		{name: "imagefamily.CheckPlacement family", call: check("Standard_E2s_v3", "eastus-1", "on-demand"), is: imagefamily.ErrInvalid,
			want: []string{"instanceType", `"Standard_E2s_v3"`, "karpenter.azure.com/sku-family"}},
		{name: "imagefamily.CheckPlacement spot", call: check("Standard_D2s_v3", "eastus-2", "spot"), is: imagefamily.ErrInvalid,
			want: []string{"capacityType", `"spot"`, "NodePool general-purpose"}},
		{name: "imagefamily.Generate capacity type", call: generate("eastus-1", "reserved", ""), is: imagefamily.ErrInvalid,
			want: []string{"capacityType", `"reserved"`}},
		{name: "imagefamily.Generate zone", call: generate("westus2-1", "on-demand", ""), is: imagefamily.ErrInvalid,
			want: []string{"zone", `"westus2-1"`, "eastus"}},
		{name: "imagefamily.Generate mode", call: generate("eastus-1", "on-demand", "cloudinit"), is: imagefamily.ErrInvalid,
			want: []string{"mode", `"cloudinit"`}},
	}
}
