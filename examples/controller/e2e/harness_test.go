//go:build e2e

// Package e2e runs the example controller against a real control plane: etcd, kube-apiserver,
// kube-scheduler and kube-controller-manager built and started by ../shared/tools/kube-apiserver-local.sh.
// There is no kubelet: the simulated Azure registers Nodes, and podKubelet in this package plays the
// kubelet's part for pods. They build only with the e2e tag (go test -tags e2e), so the unit run never compiles them;
// scripts/e2e.sh runs them.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/napkit/napkit/examples/controller/crds"
)

const (
	// envTools names the folder holding kube-apiserver-local.sh.
	envTools = "NAPKIT_KUBE_TOOLS"
	// startTimeout covers a start with the binaries cached (~10 s) with a wide margin for a loaded
	// machine; a cold build runs in scripts/e2e.sh before the tests, not here.
	startTimeout = 3 * time.Minute
)

// cluster is one running control plane and the clients the tests use on it.
type cluster struct {
	stateDir   string
	kubeconfig string
	components string
	rest       *rest.Config
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	ext        apiextclientset.Interface
	// env is extra environment for the script (e.g. KUBE_LOCAL_APISERVER_ARGS).
	env []string
}

// startCluster starts a fresh control plane for the test, with the CRDs installed, and stops it in
// cleanup. Every test gets its own, so no NodePool, Node or VM of one test can leak into another.
// components is KUBE_LOCAL_COMPONENTS: empty for all four servers, "apiserver" for etcd and
// kube-apiserver alone (3 s instead of 10 s, for tests that need no scheduling).
func startCluster(t *testing.T, components string) *cluster {
	t.Helper()
	return startClusterEnv(t, components, nil)
}

// startClusterEnv is startCluster with extra environment for kube-apiserver-local.sh.
func startClusterEnv(t *testing.T, components string, env []string) *cluster {
	t.Helper()
	script := kubeLocalScript(t)
	c := &cluster{stateDir: filepath.Join(t.TempDir(), "kube"), components: components, env: env}
	began := time.Now()
	out, err := c.runScript(t.Context(), script, "start")
	t.Cleanup(func() { c.stop(t, script) })
	require.NoError(t, err, "starting the control plane")
	t.Logf("control plane ready in %s", time.Since(began).Round(time.Millisecond))
	c.connect(t, strings.TrimSpace(out))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, crds.Install(ctx, c.ext.ApiextensionsV1()), "installing the CRDs")
	return c
}

func (c *cluster) connect(t *testing.T, kubeconfig string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err, "reading kubeconfig %s", kubeconfig)
	c.kubeconfig = kubeconfig
	// client-go's default 5 QPS would make the tests, not the controller, the bottleneck.
	cfg.QPS, cfg.Burst = 200, 400
	c.rest = cfg
	c.kube = kubernetes.NewForConfigOrDie(cfg)
	c.dyn = dynamic.NewForConfigOrDie(cfg)
	c.ext = apiextclientset.NewForConfigOrDie(cfg)
}

// kubeletClient is a client of the simulated kubelets' own, as each real kubelet has one: their
// writes neither wait behind the test's requests nor count as the controller's.
func (c *cluster) kubeletClient() kubernetes.Interface {
	cfg := rest.CopyConfig(c.rest)
	cfg.QPS, cfg.Burst = 1000, 2000
	return kubernetes.NewForConfigOrDie(cfg)
}

// stop shows the servers' logs when the test failed (they are deleted with the state dir), then stops
// exactly the servers this test started.
func (c *cluster) stop(t *testing.T, script string) {
	if t.Failed() {
		for _, name := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
			t.Logf("--- last lines of %s.log:\n%s", name, tailFile(filepath.Join(c.stateDir, name+".log"), 15))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := c.runScript(ctx, script, "stop"); err != nil {
		t.Errorf("stopping the control plane: %v\n%s", err, out)
	}
}

// kubeLocalScript finds kube-apiserver-local.sh: $NAPKIT_KUBE_TOOLS, else ../shared/tools beside the
// repository (this package is examples/controller/e2e, three levels below the root).
func kubeLocalScript(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(envTools)
	if dir == "" {
		root, err := filepath.Abs(filepath.Join("..", "..", ".."))
		require.NoError(t, err)
		dir = filepath.Join(root, "..", "shared", "tools")
	}
	script := filepath.Join(dir, "kube-apiserver-local.sh")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("kube-apiserver-local.sh not found (%v): set %s to the folder that holds it", err, envTools)
	}
	return script
}

// runScript runs one subcommand of the script on the cluster's state dir and returns its stdout; the
// error carries stderr, where the script logs.
func (c *cluster) runScript(ctx context.Context, script string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Env = append(append(os.Environ(), c.env...), "KUBE_LOCAL_STATE_DIR="+c.stateDir)
	if c.components != "" {
		cmd.Env = append(cmd.Env, "KUBE_LOCAL_COMPONENTS="+c.components)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(script), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
