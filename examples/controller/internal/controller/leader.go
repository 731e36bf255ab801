package controller

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// runAsLeader runs loops only while this replica holds the Lease; a standby keeps its caches warm
// and takes over within the lease duration when the leader goes. Losing the Lease stops the loops
// and returns, so the process exits and restarts clean, as controller-runtime does.
func (c *Controller) runAsLeader(ctx context.Context, loops func(context.Context)) error {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: c.cfg.LeaderElectionNamespace, Name: c.cfg.LeaderElectionName},
		Client:     c.cfg.Kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: c.cfg.Identity},
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				c.log.Info("leading", "lease", c.cfg.LeaderElectionNamespace+"/"+c.cfg.LeaderElectionName)
				loops(ctx)
			},
			OnStoppedLeading: func() { c.log.Info("stopped leading", "identity", c.cfg.Identity) },
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	elector.Run(ctx)
	return nil
}
