package simnodes

import (
	"context"
	"fmt"
	"strings"
)

// itemKind is one kind of write a simulated kubelet makes.
type itemKind int

const (
	registerNode itemKind = iota + 1
	finishStartup
	renewLease
	deregisterNode
	syncPod
)

func (k itemKind) String() string {
	return [...]string{"", "register", "finish startup", "renew lease", "deregister", "sync pod"}[k]
}

// item is one unit of work: a node name, or namespace/name for syncPod. The queue holds an item
// once however often it is added, and never hands it to two workers at once.
type item struct {
	kind itemKind
	name string
}

// work takes items off the queue until it shuts down. A failed item is retried with backoff.
func (k *Kubelet) work(ctx context.Context) {
	for {
		it, shutdown := k.queue.Get()
		if shutdown {
			return
		}
		err := k.do(ctx, it)
		switch {
		case err == nil:
			k.queue.Forget(it)
		case ctx.Err() == nil:
			k.opts.Logger.Warn("simulated kubelet write failed; retrying", "step", it.kind.String(), "name", it.name, "error", err)
			k.queue.AddRateLimited(it)
		}
		k.queue.Done(it)
	}
}

func (k *Kubelet) do(ctx context.Context, it item) error {
	switch it.kind {
	case registerNode:
		return k.register(ctx, it.name)
	case finishStartup:
		return k.finishStartup(ctx, it.name)
	case renewLease:
		return k.renewLease(ctx, it.name)
	case deregisterNode:
		return k.deregister(ctx, it.name)
	case syncPod:
		ns, name, ok := strings.Cut(it.name, "/")
		if !ok {
			return fmt.Errorf("pod key %q is not namespace/name", it.name)
		}
		return k.syncPod(ctx, ns, name)
	}
	return fmt.Errorf("unknown work item kind %d", it.kind)
}
