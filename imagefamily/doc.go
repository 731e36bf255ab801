// Package imagefamily decides which node image a NodeClaim boots and with what bootstrap data, for
// every provisioning mode of the seed documents (aksscriptless, bootstrappingclient, aksmachineapi,
// aksmachineapiheaderbatch). Everything here is a pure function of its input: no Azure calls, no
// clock, no globals besides immutable tables.
//
// Generate is the single entry point. It runs these steps, each also usable on its own:
//
//	AKSNodeClass + cluster version + mode
//	        │  ResolveFamily      Ubuntu → 2204/2404 by version, FIPS and trusted-launch rules;
//	        ▼                     AzureLinux → 2/3; Windows only in the Machine API modes
//	      Family ── VariantOf(FIPS, trusted launch)
//	        │  SelectDefinition   first definition for the SKU's arch and Hyper-V generations
//	        ▼
//	    Definition ── ResolveImage  community or shared gallery ID, newest version
//	        │
//	        ├─ kubeletconfig      maxPods, reservations, eviction, node class kubelet block
//	        ├─ labels and taints  AKS base labels, image labels, network labels, claim labels;
//	        │                     startup taints plus karpenter.sh/unregistered
//	        ▼
//	   bootstrap.*        the mode's payload: customData script, bootstrapping request body, or
//	                      AKS Machine body (see package bootstrap)
//
// kubeletconfig is the only source of the pod limit, kube-reserved, system-reserved and eviction
// values: Generate renders them from it and never computes its own, so a node's kubelet enforces
// exactly the allocatable the catalogue (package instancetype) planned with. ShapeOf carries the
// catalogue's reservation into Generate for that reason.
//
// Output never shows the TLS bootstrap token: its payloads print, format and marshal with the token
// replaced by <redacted>; only Payload.Reveal and Output.JSON(true) return it.
package imagefamily
