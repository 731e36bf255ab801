// Package nodeclassstatus computes an AKSNodeClass's status: the Kubernetes version its nodes boot
// (status.kubernetesVersion), the node images they boot in priority order (status.images) and the
// conditions Karpenter's Azure provider sets (KubernetesVersionReady, ImagesReady and the root
// Ready). It is pure: the caller discovers the API server's version and the published image
// versions (package launch/discovery does the Azure half) and reads the maintenance-window
// ConfigMap, then writes the returned status.
//
// Data flow of one Compute:
//
//	API server version ──kubeversion.Next──▶ kubernetesVersion (never downgraded; an upgrade
//	                                          makes the images unready so they are picked again)
//	class spec + version ─imagefamily─▶ family, variant, definitions (arch, Hyper-V generation)
//	published versions ──newest per definition──▶ goal images
//	maintenance window ──gate──▶ goal images, or the recorded versions kept (new definitions only)
//	                              ▶ status + conditions + notes saying what changed and why
//
// The gate is upstream's (pkg/controllers/nodeclass/status/images.go): a class whose images are
// not ready (new, or after a Kubernetes upgrade) takes the newest images at once; otherwise newer
// versions are taken only while the node-OS maintenance window is open (always, when the cluster
// defines none), and recorded images keep their version outside it.
package nodeclassstatus
