package walkthrough

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/launch/azuresim"
)

// blockingWriter holds its first write until released, as a slow terminal would: it stands for an
// informer handler still printing when the walkthrough ends.
type blockingWriter struct {
	started, release chan struct{}
	out              bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	select {
	case <-w.started:
	default:
		close(w.started)
		<-w.release
	}
	return w.out.Write(p)
}

// TestNarratorWaitsForHandlers: run returns only after its informers' handlers have: Run prints
// the summary line once the narrator returned, so a handler still printing then wrote to Out
// concurrently (CI's race detector caught it in TestRunWalkthrough).
func TestNarratorWaitsForHandlers(t *testing.T) {
	kube, dyn := newCluster(time.Now)
	sim := azuresim.New(azuresim.Options{})
	w := &blockingWriter{started: make(chan struct{}), release: make(chan struct{})}
	n := newNarrator(w, kube, dyn, sim)
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan error, 1)
	go func() { returned <- n.run(ctx) }()

	_, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "aks-default-a"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	<-w.started // the node handler is printing, and holds
	cancel()
	select {
	case <-returned:
		t.Fatal("run returned while a handler was still printing")
	case <-time.After(200 * time.Millisecond):
	}
	close(w.release)
	select {
	case err := <-returned:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its handler did")
	}
	assert.Contains(t, w.out.String(), "node aks-default-a:")
}
