//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// servedVersion is the controller's client with the API server's /version answer replaced, so a
// test can upgrade the control plane the controller sees; everything else goes to the real one.
type servedVersion struct {
	kubernetes.Interface
	git atomic.Pointer[string]
}

func (s *servedVersion) set(v string) { s.git.Store(&v) }
func (s *servedVersion) get() string  { return *s.git.Load() }

func (s *servedVersion) Discovery() discovery.DiscoveryInterfaces {
	return servedDiscovery{DiscoveryInterfaces: s.Interface.Discovery(), s: s}
}

type servedDiscovery struct {
	discovery.DiscoveryInterfaces
	s *servedVersion
}

func (d servedDiscovery) ServerVersion() (*version.Info, error) {
	return d.ServerVersionWithContext(context.Background())
}

func (d servedDiscovery) ServerVersionWithContext(ctx context.Context) (*version.Info, error) {
	info, err := d.DiscoveryInterfaces.ServerVersionWithContext(ctx)
	if err != nil {
		return nil, err
	}
	out := *info
	out.GitVersion = d.s.get()
	return &out, nil
}

// classVersion is nil once the default AKSNodeClass is Ready and records Kubernetes version want.
func classVersion(ctx context.Context, s *stack, want string) error {
	class, err := defaultNodeClass(ctx, s)
	if err != nil {
		return err
	}
	if !meta.IsStatusConditionTrue(class.Status.Conditions, "Ready") || class.Status.KubernetesVersion != want {
		return fmt.Errorf("status.kubernetesVersion %q, want %q (conditions %v)", class.Status.KubernetesVersion, want, class.Status.Conditions)
	}
	return nil
}

// kubeletSkew samples, every 100 ms, every node's kubelet version against the version the
// controller is served at that moment, and keeps the kubelets found newer than it.
type kubeletSkew struct {
	mu     sync.Mutex
	newer  []string
	cancel context.CancelFunc
	done   chan struct{}
}

func watchKubeletSkew(t *testing.T, s *stack, served *servedVersion) *kubeletSkew {
	ctx, cancel := context.WithCancel(t.Context())
	w := &kubeletSkew{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			cp := utilversion.MustParseGeneric(served.get())
			nodes, err := s.c.poolNodes(ctx, seedPool)
			if err == nil {
				for _, n := range nodes {
					kv, err := utilversion.ParseGeneric(n.Status.NodeInfo.KubeletVersion)
					if err != nil || kv.GreaterThan(cp) {
						w.mu.Lock()
						w.newer = append(w.newer, fmt.Sprintf("%s kubelet %q, control plane %s", n.Name, n.Status.NodeInfo.KubeletVersion, cp))
						w.mu.Unlock()
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(samplePeriod):
			}
		}
	}()
	return w
}

func (w *kubeletSkew) stop() []string {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.newer
}

// TestKubernetesUpgradeRollsNodes: the control plane the controller sees is upgraded from 1.36.5
// to the real API server's version. The AKSNodeClass status takes the new version (after the
// version cache's TTL, shortened to 1 s here), every node drifts with KubernetesVersionDrifted
// naming both versions, and is replaced one at a time by a node whose kubelet (the version its
// bootstrap data installed) is the new one; no kubelet is ever newer than the control plane the
// controller was served at that moment, and the web Deployment never has more than one pod down.
func TestKubernetesUpgradeRollsNodes(t *testing.T) {
	const before = "v1.36.5"
	served := &servedVersion{}
	served.set(before)
	s, ns := upkeepStack(t, func(cfg *controller.Config) {
		served.Interface = cfg.Kube
		cfg.Kube = served
		cfg.Upkeep.VersionTTL = time.Second
	})
	real, err := s.c.kube.Discovery().ServerVersion()
	require.NoError(t, err)
	after := "v" + utilversion.MustParseGeneric(real.GitVersion).String()
	require.True(t, utilversion.MustParseGeneric(after).GreaterThan(utilversion.MustParseGeneric(before)),
		"the real API server (%s) must be newer than %s", after, before)
	require.NoError(t, classVersion(t.Context(), s, strings.TrimPrefix(before, "v")))
	old := nodeNames(t, s)
	require.Len(t, old, 3)
	skew := watchKubeletSkew(t, s, served)
	w := watchRoll(t, s, ns)
	for _, name := range old {
		node, err := s.c.kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, before, node.Status.NodeInfo.KubeletVersion, "node %s booted the served version", name)
	}

	served.set(after)
	waitUntil(t, 30*time.Second, "AKSNodeClass at "+after, func(ctx context.Context) error {
		return classVersion(ctx, s, strings.TrimPrefix(after, "v"))
	})
	took := waitUntil(t, 4*time.Minute, "every node replaced by one running kubelet "+after, func(ctx context.Context) error {
		if err := rolled(ctx, s, ns, old, func(*api.NodeClaim) error { return nil }); err != nil {
			return err
		}
		nodes, err := s.c.poolNodes(ctx, seedPool)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if n.Status.NodeInfo.KubeletVersion != after {
				return fmt.Errorf("node %s runs kubelet %s", n.Name, n.Status.NodeInfo.KubeletVersion)
			}
		}
		return nil
	})
	w.stop()
	newer := skew.stop()
	t.Logf("rolled in %s: at least %d of 3 web pods Ready, at most %d node(s) disrupted at once; drifted: %v",
		took, w.minReady, w.maxDisrupted, w.drifted)
	assert.Empty(t, newer, "a kubelet newer than the control plane")
	assert.GreaterOrEqual(t, w.minReady, 2, "the PDB allows one web pod down at a time")
	assert.Equal(t, 1, w.maxDisrupted, "one node at a time (the budget)")
	assert.Len(t, w.drifted, 3, "every old node drifted")
	want := fmt.Sprintf("KubernetesVersionDrifted: kubernetesVersion %s -> %s", strings.TrimPrefix(before, "v"), strings.TrimPrefix(after, "v"))
	for name, why := range w.drifted {
		assert.Equal(t, want, why, name)
	}
}
