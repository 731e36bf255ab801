// Package kubeletconfig decides what a node keeps back from pods and writes the kubelet configuration
// that enforces it: the pod limit (MaxPods), the reservation (Reserve) and the typed kubelet settings
// (Build, Config.Validate, Config.Flags, Config.YAML).
//
// # One function, two consumers
//
// A node's allocatable is capacity − kube-reserved − system-reserved − hard eviction threshold. Two
// parts of napkit need that number and they must agree:
//
//   - the catalogue (package instancetype) subtracts Reservation.Total from capacity to get the
//     allocatable the provisioner packs pods against;
//   - the bootstrap data (package imagefamily) passes the same Reservation through Build into
//     --kube-reserved, --system-reserved and --eviction-hard, which the kubelet then enforces and
//     reports as the Node's allocatable.
//
// If the two were computed separately, any drift would show up as pods that the simulation placed
// but the real node rejects (estimate too high), or as nodes bought bigger than needed (estimate too
// low). So Reserve is the only place the formulas live, its results are exact resource.Quantity values
// (whole millicores and whole MiB), and Flags/YAML render memory in Mi so a reader can check
// capacity − reservation against the catalogue to the byte. ReservationFromFlags reads the flags back
// so tests can assert the round trip.
//
// # Policies
//
// PolicyMaxPods (the default, and what the seed documents prescribe for every provisioning mode):
// kube-reserved memory = min(20 × maxPods + 50, nominalMemoryMiB / 4) MiB, rounded down, and
// memory.available<100Mi. PolicyAKSBrackets keeps the older AKS regressive brackets with a 750Mi
// threshold. Both reserve CPU with the same brackets (6% of the first core, 4% of the second, 2% of
// cores 3–4, 1% above) and no system-reserved. Standard_D2s_v3 with Azure CNI overlay (2 vCPU,
// 8 GiB, 250 pods) gets cpu 100m, memory 2048Mi and eviction 100Mi under the default policy.
//
// # Validation
//
// Build validates; every error is an *api.FieldError of class ErrInvalid that names the field path
// (for node-class settings, spec.kubelet.<field>) and the rejected value. Nothing here does I/O or keeps
// state, and the same input always gives byte-identical flags and YAML.
package kubeletconfig
