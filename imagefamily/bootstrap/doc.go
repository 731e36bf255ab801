// Package bootstrap renders the data a new node boots with, from fully resolved inputs (package
// imagefamily resolves them):
//
//   - aksscriptless: RenderScriptless writes the bash script the AKS node image expects as
//     customData: it waits for the image's provisioning scripts, exports the node's settings as
//     NAME='value' variables (kubelet flags, node labels, taints, cluster CA, TLS bootstrap token,
//     network and GPU settings, download URLs) and starts provisioning.
//   - bootstrappingclient: BuildProvisionValues builds the node bootstrapping service request, and
//     Hydrate fills the bootstrap token into the customData and extension command it returns.
//   - aksmachineapi: BuildMachine builds the AKS Machine resource body; MachineName derives its name.
//   - aksmachineapiheaderbatch: GroupBatches groups machines sharing a template, at most 50 a batch.
//
// Safety: every label and taint is checked against Kubernetes syntax, every cluster setting against
// Azure's, and every kubelet flag against a shell-inert character set before anything is rendered;
// each value is then single-quoted (Quote), so no input can end an assignment or start a command.
// Rejected input comes back as an *api.FieldError naming it.
//
// Secrets: the token travels as a Secret, and payloads that embed it as a Payload. Both print,
// format (every verb) and marshal redacted; only their Reveal methods return the real bytes.
//
// Output is deterministic: the same input gives byte-identical bytes (variables, flags and labels are
// sorted; maps are marshalled with sorted keys).
package bootstrap
