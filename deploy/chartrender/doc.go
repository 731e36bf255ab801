// Package chartrender renders napkit's Helm chart (charts/napkit) with the Helm Go SDK exactly as
// `helm template --include-crds` does, and decodes the manifests into objects its tests inspect:
// the kinds, the RBAC rules against the audited set (charts/napkit/rbac/rules.yaml), a value for
// every controller flag, and no secret in plain text.
//
// It lives in the deploy module so that Helm's dependencies never reach the library's go.mod.
package chartrender
