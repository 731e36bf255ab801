// Package api is napkit's vocabulary: Go types for the manifests users already write, with the same JSON
// field names as the CRDs, so that YAML reads unchanged.
//
//   - karpenter.sh/v1 NodePool and NodeClaim (nodepool.go, nodeclaim.go);
//   - karpenter.azure.com/v1beta1 AKSNodeClass (aksnodeclass.go);
//   - the well-known label keys, taints and annotations both projects define (labels.go);
//   - the cluster network settings napkit can provision for (cluster.go);
//   - defaults as the CRDs set them (defaults.go): Default methods fill absent fields only, and
//     NodePool.Default returns a Note for the one default that is napkit's rather than the CRD's
//     (a nodeClassRef that names only the node class);
//   - validation mirroring the CRD OpenAPI and CEL rules and the Azure provider's label rules
//     (validation*.go). Validate methods report every problem at once in a *ValidationError whose
//     entries are *FieldError values naming the field path and the bad value; it matches ErrInvalid;
//   - napkit's error vocabulary for bad input (errors.go, fielderror.go): ErrInvalid is the root;
//     InvalidClass makes each package's class (provisioner.ErrInvalidInput and the rest) wrap it; and
//     *FieldError is the one error type every package returns for bad input, naming the object, the
//     field path, the value as given and the reason, with the package's class as its Kind. Other
//     packages define no field-error type of their own (errortypes_test.go in the module root).
//     AKSNodeClass.ValidateForMode adds the rules that depend on the provisioning mode (Windows needs
//     the AKS Machine API), and ClusterNetwork.Validate rejects the cluster setups the seed documents
//     name as unsupported (kubenet, Calico, IPv6, service principals).
//
// NillableDuration distinguishes an absent field from an explicit "Never" (IsSet), so that defaulting
// gives expireAfter 720h only when the manifest left it out.
//
// Data flows one way: the manifest package decodes YAML into these types, calls Default and Validate,
// and hands them to the catalogue (instancetype), the planner (provisioner) and the rest. Nothing here
// does I/O or holds state.
package api
