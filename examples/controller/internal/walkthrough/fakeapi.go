package walkthrough

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// newCluster returns client-go's fake clientsets (typed and dynamic) taught the API server
// behaviour the controller relies on and the fakes leave out: UIDs, resource versions with
// optimistic concurrency (409 Conflict), creation timestamps, generateName, finalizers
// (a delete only marks the object while finalizers remain; the update that removes the last one
// deletes it), graceful pod deletion on a node, and the eviction subresource (a delete; this
// stand-in checks no PodDisruptionBudgets).
func newCluster(clock func() time.Time) (*kubefake.Clientset, *dynamicfake.FakeDynamicClient) {
	kube := kubefake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), controller.ListKinds())
	ids := &apiServer{clock: clock}
	ids.install(&kube.Fake, kube.Tracker())
	ids.install(&dyn.Fake, dyn.Tracker())
	return kube, dyn
}

// apiServer holds the counters behind UIDs and resource versions.
type apiServer struct {
	clock   func() time.Time
	counter atomic.Int64
}

func (s *apiServer) next() string { return strconv.FormatInt(s.counter.Add(1), 10) }

func (s *apiServer) install(f *k8stesting.Fake, t k8stesting.ObjectTracker) {
	f.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca := a.(k8stesting.CreateAction)
		if ca.GetSubresource() == "eviction" {
			return s.evict(t, ca)
		}
		if ca.GetSubresource() != "" {
			return false, nil, nil
		}
		return s.create(t, ca)
	})
	f.PrependReactor("update", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return s.update(t, a.(k8stesting.UpdateAction))
	})
	f.PrependReactor("delete", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		da := a.(k8stesting.DeleteAction)
		return true, nil, s.remove(t, da.GetResource(), da.GetNamespace(), da.GetName(), da.GetDeleteOptions())
	})
}

func (s *apiServer) create(t k8stesting.ObjectTracker, a k8stesting.CreateAction) (bool, runtime.Object, error) {
	obj := a.GetObject().DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return true, nil, err
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(m.GetGenerateName() + suffix(s.counter.Add(1)))
	}
	m.SetUID(types.UID("uid-" + s.next()))
	m.SetResourceVersion(s.next())
	m.SetCreationTimestamp(metav1.NewTime(s.clock()))
	if err := t.Create(a.GetResource(), obj, a.GetNamespace()); err != nil {
		return true, nil, err
	}
	return true, obj, nil
}

// update refuses a stale write, keeps what clients may not change, and completes the deletion of
// an object whose last finalizer goes.
func (s *apiServer) update(t k8stesting.ObjectTracker, a k8stesting.UpdateAction) (bool, runtime.Object, error) {
	obj := a.GetObject().DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return true, nil, err
	}
	cur, err := t.Get(a.GetResource(), a.GetNamespace(), m.GetName())
	if err != nil {
		return true, nil, err
	}
	cm, _ := meta.Accessor(cur)
	if m.GetResourceVersion() != "" && m.GetResourceVersion() != cm.GetResourceVersion() {
		return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), m.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	m.SetUID(cm.GetUID())
	m.SetCreationTimestamp(cm.GetCreationTimestamp())
	m.SetDeletionTimestamp(cm.GetDeletionTimestamp())
	m.SetResourceVersion(s.next())
	if m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 {
		return true, obj, t.Delete(a.GetResource(), a.GetNamespace(), m.GetName())
	}
	return true, obj, t.Update(a.GetResource(), obj, a.GetNamespace())
}

// remove deletes the object, or only marks it while finalizers remain or a bound pod still has
// to terminate on its node (the kubelet then deletes it with a zero grace period).
func (s *apiServer) remove(t k8stesting.ObjectTracker, gvr schema.GroupVersionResource, ns, name string, opts metav1.DeleteOptions) error {
	cur, err := t.Get(gvr, ns, name)
	if err != nil {
		return err
	}
	m, _ := meta.Accessor(cur)
	grace := podGrace(cur, opts)
	if len(m.GetFinalizers()) == 0 && grace == 0 {
		return t.Delete(gvr, ns, name)
	}
	if m.GetDeletionTimestamp() == nil {
		m.SetDeletionTimestamp(ptr(metav1.NewTime(s.clock().Add(time.Duration(grace) * time.Second))))
		m.SetResourceVersion(s.next())
		return t.Update(gvr, cur, ns)
	}
	return nil
}

// podGrace is the graceful-deletion period of a pod bound to a node, 0 for anything else.
func podGrace(obj runtime.Object, opts metav1.DeleteOptions) int64 {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return 0
	}
	if opts.GracePeriodSeconds != nil {
		return *opts.GracePeriodSeconds
	}
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return corev1.DefaultTerminationGracePeriodSeconds
}

func (s *apiServer) evict(t k8stesting.ObjectTracker, a k8stesting.CreateAction) (bool, runtime.Object, error) {
	m, err := meta.Accessor(a.GetObject())
	if err != nil {
		return true, nil, err
	}
	return true, nil, s.remove(t, a.GetResource(), a.GetNamespace(), m.GetName(), metav1.DeleteOptions{})
}

// suffix is generateName's random part, made from a counter so runs are reproducible.
func suffix(n int64) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	out := make([]byte, 5)
	for i := range out {
		out[i] = letters[n%int64(len(letters))]
		n /= int64(len(letters))
	}
	return string(out)
}

func ptr[T any](v T) *T { return &v }
