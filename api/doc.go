// Package api is napkit's vocabulary: Go types for the manifests users already write, with the same JSON
// field names as the CRDs, so that YAML reads unchanged.
//
//   - karpenter.sh/v1 NodePool and NodeClaim (nodepool.go, nodeclaim.go);
//   - karpenter.azure.com/v1beta1 AKSNodeClass (aksnodeclass.go);
//   - the well-known label keys, taints and annotations both projects define (labels.go);
//   - defaults as the CRDs set them (defaults.go) and validation mirroring the CRD and CEL rules
//     (validation*.go), where every error names the field path and the bad value.
//
// Data flows one way: the manifest package decodes YAML into these types, calls Default and Validate,
// and hands them to the catalogue (instancetype), the planner (provisioner) and the rest. Nothing here
// does I/O or holds state.
package api
