package walkthrough

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/manifest"
)

//go:embed testdata/seed-walkthrough.yaml
var seedManifests []byte

// script is the walkthrough's sequence of steps, each run as a user would with kubectl, each
// waiting for its outcome.
type script struct {
	*env
	stepTimeout time.Duration
}

func (s *script) run(ctx context.Context) (Summary, error) {
	sum := Summary{PodsWanted: replicas}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"apply the seed NodePool, AKSNodeClass and Deployment", s.apply},
		{"scale inflate to 5", s.scaleUp},
		{"delete a node", s.deleteNode},
		{"delete the deployment", s.deleteDeployment},
	}
	for _, st := range steps {
		if err := st.run(ctx); err != nil {
			return sum, fmt.Errorf("step %q: %w", st.name, err)
		}
		if st.name == "delete a node" {
			sum.PodsRunning = s.narrator.runningPods()
		}
	}
	sum.NodesLaunched, sum.NodesRemoved = s.narrator.counts()
	sum.LeakedVMs = len(s.sim.VMNames())
	if nics := s.sim.NICNames(); len(nics) > 0 || sum.LeakedVMs > 0 {
		return sum, fmt.Errorf("leaked VMs %v and NICs %v", s.sim.VMNames(), nics)
	}
	return sum, nil
}

// apply creates the seed's NodePool, AKSNodeClass and (0-replica) Deployment.
func (s *script) apply(ctx context.Context) error {
	set, err := manifest.Decode(bytes.NewReader(seedManifests), "seed-walkthrough.yaml")
	if err != nil {
		return err
	}
	s.narrator.say("kubectl apply -f seed-walkthrough.yaml: NodePool %s, AKSNodeClass %s, Deployment %s (0 replicas)",
		set.NodePools[0].Name, set.NodeClasses[0].Name, deployment)
	for _, pool := range set.NodePools {
		pool.APIVersion, pool.Kind = api.KarpenterVersion, api.KindNodePool
		if err := s.create(ctx, controller.NodePoolsGVR, pool); err != nil {
			return err
		}
	}
	for _, class := range set.NodeClasses {
		class.APIVersion, class.Kind = api.AzureVersion, api.KindAKSNodeClass
		if err := s.create(ctx, controller.AKSNodeClassesGVR, class); err != nil {
			return err
		}
	}
	for _, obj := range set.Objects {
		var d appsv1.Deployment
		if obj.Kind.Kind != "Deployment" || json.Unmarshal(obj.JSON, &d) != nil {
			continue
		}
		d.Namespace = metav1.NamespaceDefault
		if _, err := s.kube.AppsV1().Deployments(d.Namespace).Create(ctx, &d, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create deployment %s: %w", d.Name, err)
		}
	}
	return nil
}

func (s *script) create(ctx context.Context, gvr schema.GroupVersionResource, obj any) error {
	u, err := controller.ToUnstructured(obj)
	if err != nil {
		return err
	}
	if _, err := s.dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}
