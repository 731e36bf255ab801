package controller

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/napkit/napkit/api"
)

// TagUpdater is the optional part of a Launcher that updates a VM's and its NIC's tags in place
// (*azure.Launcher implements it). Without it, node class tag changes reach new nodes only.
type TagUpdater interface {
	UpdateTags(ctx context.Context, providerID, nodePool string, nodeClassTags map[string]string) (bool, error)
}

// updateTagsInPlace applies each AKSNodeClass's tags to the VMs and NICs of its registered
// NodeClaims without replacing them (tags are not part of the static hash, so they never drift a
// node). The in-place hash annotation records what was applied, so each change is written once.
func (c *Controller) updateTagsInPlace(ctx context.Context) {
	updater, ok := c.cfg.Launcher.(TagUpdater)
	if !ok {
		return
	}
	for _, nc := range c.claims() {
		if nc.DeletionTimestamp != nil || nc.Status.ProviderID == "" || !conditionTrue(nc, api.ConditionRegistered) || nc.Spec.NodeClassRef == nil {
			continue
		}
		class := c.nodeClass(nc.Spec.NodeClassRef.Name)
		if class == nil {
			continue
		}
		pool := nc.Labels[api.LabelNodePool]
		hash := inPlaceHash(pool, class.Spec.Tags)
		if nc.Annotations[api.AnnotationInPlaceUpdateHash] == hash {
			continue
		}
		changed, err := updater.UpdateTags(ctx, nc.Status.ProviderID, pool, class.Spec.Tags)
		if err != nil {
			c.log.Error("updating VM tags in place failed", "nodeClaim", nc.Name, "error", err)
			continue
		}
		if changed {
			c.log.Info("VM and NIC tags updated in place", "nodeClaim", nc.Name)
		}
		err = c.updateClaim(ctx, nc.Name, func(nc *api.NodeClaim) bool {
			if nc.Annotations == nil {
				nc.Annotations = map[string]string{}
			}
			nc.Annotations[api.AnnotationInPlaceUpdateHash] = hash
			return true
		})
		if ignoreNotFound(err) != nil {
			c.log.Warn("recording the in-place update failed", "nodeClaim", nc.Name, "error", err)
		}
	}
}

// inPlaceHash is the FNV-32a hash, in decimal, of the tags' JSON (keys sorted), as upstream's.
func inPlaceHash(pool string, tags map[string]string) string {
	data, _ := json.Marshal(struct {
		Pool string            `json:"pool"`
		Tags map[string]string `json:"tags,omitempty"`
	}{pool, tags}) // strings only: always marshals
	h := fnv.New32a()
	_, _ = h.Write(data)
	return strconv.FormatUint(uint64(h.Sum32()), 10)
}
