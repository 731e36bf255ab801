package controller

import (
	"context"
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/launch"
)

// startLaunch launches the claim in the background, at most MaxConcurrentLaunches at once, unless
// its launch is already running.
func (c *Controller) startLaunch(ctx context.Context, nc *api.NodeClaim) {
	if !c.state.startLaunch(nc.Name) {
		return
	}
	go func() {
		defer c.state.endLaunch(nc.Name)
		select {
		case c.launchSlots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-c.launchSlots }()
		if err := c.launch(ctx, nc); err != nil && ctx.Err() == nil {
			c.log.Error("launch failed", "nodeClaim", nc.Name, "error", err)
		}
	}()
}

// launch goes the library's one way: launch.RequestFor builds the request from the claim, its
// AKSNodeClass, the node class's catalogue and the cluster settings, and the launcher tries the
// offerings (marking the unavailable-offerings cache, which the next plan reads). A failure fails
// the claim, and its pods are planned again.
func (c *Controller) launch(ctx context.Context, nc *api.NodeClaim) error {
	if nc.Spec.NodeClassRef == nil {
		return c.failLaunch(ctx, nc, errors.New("spec.nodeClassRef is not set"))
	}
	class := c.nodeClass(nc.Spec.NodeClassRef.Name)
	if class == nil {
		return c.failLaunch(ctx, nc, fmt.Errorf("AKSNodeClass %q not found", nc.Spec.NodeClassRef.Name))
	}
	cat, err := c.catalogues.get(class)
	if err != nil {
		return c.failLaunch(ctx, nc, err)
	}
	cluster, images, err := c.bootSettings(class)
	if err != nil {
		return c.failLaunch(ctx, nc, err)
	}
	req, err := launch.RequestFor(ctx, launch.RequestOptions{
		NodeClaim: nc, NodeClass: class, Catalogue: cat, Images: images, Mode: c.cfg.ProvisionMode,
		Cluster: launch.ClusterSettings{Cluster: cluster, SSHPublicKey: c.cfg.SSHPublicKey,
			NodeIdentities: c.cfg.NodeIdentities, DiskEncryptionSetID: c.cfg.DiskEncryptionSetID},
	})
	if err != nil {
		return c.failLaunch(ctx, nc, err)
	}
	inst, err := c.cfg.Launcher.Create(ctx, req)
	if err != nil {
		return c.failLaunch(ctx, nc, err)
	}
	return c.markLaunched(ctx, nc.Name, inst, cat)
}
