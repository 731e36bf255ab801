// Package napkit is a library for Kubernetes node autoprovisioning on Azure: what Karpenter does on AKS
// (Node Auto Provisioning), as importable, dependency-light packages.
//
// Data flows one way, from manifests to actions:
//
//  1. Vocabulary. Package api holds the types users already write (karpenter.sh/v1 NodePool and
//     NodeClaim, karpenter.azure.com/v1beta1 AKSNodeClass) with their defaults and validation; package
//     manifest reads multi-document YAML into them; package requirements is the label-requirements
//     algebra every later step uses.
//  2. Catalogue. Package instancetype turns Azure Resource SKUs into instance types with exact capacity,
//     reservations (from package kubeletconfig), allocatable, labels and offerings priced by package
//     pricing. Package azuredata embeds real SKU and price snapshots so all of this works offline.
//  3. Decisions. The provisioner simulates scheduling and chooses the cheapest NodeClaims for pending
//     pods; consolidation chooses nodes to remove or replace. Both are pure functions of their inputs
//     (cluster snapshot, NodePools, catalogue, clock, seed) and return plain values.
//  4. Actions. Package launch creates and deletes VMs through Azure Resource Manager, with image and
//     bootstrap data from package imagefamily.
//  5. Examples. The napkit CLI (examples/napkit) prints catalogues and plans; the example controller
//     (examples/controller) wires everything to a Kubernetes API server.
//
// Nothing below the examples keeps global state: clocks, seeds and options are inputs, and outputs are
// sorted so that the same input always gives the same result.
package napkit
