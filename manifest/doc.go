// Package manifest reads the YAML and JSON manifests users already have into napkit's types.
//
// Decode reads one multi-document stream; DecodeFiles reads files and directories (their *.yaml,
// *.yml and *.json files, in name order). Both return a Set:
//
//   - karpenter.sh/v1 NodePool and NodeClaim and karpenter.azure.com/v1beta1 AKSNodeClass, read
//     strictly (an unknown or duplicate field is an error naming its path, because a misspelt field
//     would otherwise be dropped and the object would behave differently than written), then
//     defaulted and validated with the api package, and sorted by name;
//   - Kubernetes objects napkit will need later (Pods, Deployments, StatefulSets, DaemonSets, Jobs,
//     PodDisruptionBudgets, Nodes, ...) kept as Objects: decoded strictly into their k8s.io/api types
//     when read (a bad value is named by path and value; negative requests by container), then
//     handed out by Object.Decode;
//   - Notes: defaults napkit chose that the CRDs would not have, documents of kinds it does not read
//     (skipped, not an error, so that whole-cluster manifests can be passed as they are), and NodePools
//     whose AKSNodeClass is not among the manifests.
//
// Which kinds are read, and how, is a table from apiVersion/kind to a DecodeFunc: DefaultKinds returns
// it and NewDecoder takes a modified copy, which is how typed decoders for more kinds plug in.
//
// What is refused rather than read: Karpenter objects of older API versions (ErrUnsupportedVersion,
// pointing to the v1 migration, because skipping them would plan as if the NodePool did not exist);
// a source without documents, a directory without manifest files, or input of which nothing is read
// (ErrNoObjects, because an empty plan would look like an answer); a source larger than
// Decoder.MaxBytes (ErrTooLarge, DefaultMaxBytes 64 MiB, so memory stays bounded). "-" in DecodeFiles
// is standard input.
//
// Documents may be separated by "---" lines, be empty or hold only comments, or be v1 List objects
// (as kubectl get -o yaml prints). Every error names the source, the document (1-based, counting
// documents with content) and its first line, and once known the object; errors about the input wrap
// ErrDecode and validation errors wrap api.ErrInvalid. All problems are reported together, and on
// error no Set is returned. Names must be unique per kind (and namespace) across everything read.
//
// Speed: a source's documents are converted and decoded in parallel (GOMAXPROCS workers, chunks of
// documents in order), and the results are taken in input order as they become ready, so the Set,
// the notes and the errors are those of a sequential run. YAML in the plain block style that generators and kubectl print goes to JSON
// through a small converter of that subset; anything outside it (and every error) takes
// sigs.k8s.io/yaml, which gives the same JSON for whatever the small converter takes. Documents that
// differ only in their top-level metadata block (a workload's pods) are converted and decoded once:
// the rest is kept as a template, and each document converts and decodes its metadata alone and
// gets a deep copy of the template's value (see fromTemplate for why that is the same result), or
// with Decoder.ShareTemplates a copy of its top level only, for callers that only read the objects;
// a build whose documents rarely share a template stops looking after 256 of them.
//
// The same input always gives the same Set, whatever the order of its documents (notes aside, which
// keep input order).
package manifest
