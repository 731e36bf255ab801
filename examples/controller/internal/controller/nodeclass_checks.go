package controller

import (
	"context"
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch/discovery"
)

// What the status writer reads from Azure beside image versions, for the AKSNodeClass conditions
// upstream bases on it (pkg/controllers/nodeclass/status/subnet.go, validation.go).

// desCheck is what reading the disk encryption set said this pass.
type desCheck struct {
	checked bool
	denied  string
}

// checkDiskEncryptionSet reads the configured set. Only a refused read decides against it; any
// other failure leaves ValidationSucceeded as recorded, as upstream requeues.
func (c *Controller) checkDiskEncryptionSet(ctx context.Context) desCheck {
	if c.cfg.DiskEncryptionSetID == "" || c.cfg.Upkeep.DiskEncryptionSet == nil {
		return desCheck{}
	}
	err := c.cfg.Upkeep.DiskEncryptionSet.Check(ctx)
	switch {
	case err == nil:
		return desCheck{checked: true}
	case errors.Is(err, discovery.ErrDiskEncryptionSetAccess):
		return desCheck{checked: true, denied: err.Error()}
	}
	c.log.Error("reading the disk encryption set failed; ValidationSucceeded left as it is", "error", err)
	return desCheck{}
}

// checkSubnet reads the subnet the class's nodes join, when a reader is configured and the ID
// parses (one that does not is SubnetsReady's to report). It returns why the subnet was not
// found; another failure is an error, which leaves the status as it was this pass.
func (c *Controller) checkSubnet(ctx context.Context, class *api.AKSNodeClass) (string, error) {
	id := class.SubnetID(c.cfg.Cluster.SubnetID)
	if c.cfg.Upkeep.Subnets == nil || id == "" {
		return "", nil
	}
	if _, err := bootstrap.ParseSubnetID(id); err != nil {
		return "", nil
	}
	err := c.cfg.Upkeep.Subnets.Check(ctx, id)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, discovery.ErrSubnetNotFound):
		return err.Error(), nil
	}
	return "", fmt.Errorf("reading subnet: %w", err)
}
