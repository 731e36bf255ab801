package controller

import (
	"maps"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

// stampDriftAnnotations records on a new NodeClaim what drift is later judged against: its
// AKSNodeClass's static hash (with the field hashes that name what changed) and the cluster
// network it is launched into.
func (c *Controller) stampDriftAnnotations(nc *api.NodeClaim) {
	if nc.Annotations == nil {
		nc.Annotations = map[string]string{}
	}
	nc.Annotations[api.AnnotationClusterNetwork] = consolidation.ClusterNetworkAnnotation(c.cfg.Cluster.Network)
	if nc.Spec.NodeClassRef == nil {
		return
	}
	if class := c.nodeClass(nc.Spec.NodeClassRef.Name); class != nil {
		maps.Copy(nc.Annotations, consolidation.NodeClassHashAnnotations(class))
	}
}

// clusterConfig is the cluster-level configuration nodes drift from when it changes.
func (c *Controller) clusterConfig() consolidation.ClusterConfig {
	network := c.cfg.Cluster.Network
	return consolidation.ClusterConfig{KubeletIdentityClientID: c.cfg.Cluster.KubeletIdentityClientID, Network: &network}
}
