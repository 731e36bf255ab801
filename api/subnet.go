package api

// SubnetID is the subnet the class's nodes join: spec.vnetSubnetID, else the cluster's subnet
// clusterSubnetID. A nil class joins the cluster's.
func (nc *AKSNodeClass) SubnetID(clusterSubnetID string) string {
	if nc != nil && nc.Spec.VNETSubnetID != nil && *nc.Spec.VNETSubnetID != "" {
		return *nc.Spec.VNETSubnetID
	}
	return clusterSubnetID
}
