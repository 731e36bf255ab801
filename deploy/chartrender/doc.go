// Package chartrender renders napkit's Helm chart (charts/napkit) with the Helm Go SDK exactly as
// `helm template --include-crds` does, and decodes the manifests into objects its tests inspect:
// the kinds, the RBAC rules against the audited set (charts/napkit/rbac/rules.yaml), a value for
// every controller flag, every value set by a test case, and no secret in plain text. It also keeps
// testdata/e2e-chart.golden.yaml, the release the e2e suite installs on its control plane (the
// examples module does not import Helm).
//
// It lives in the deploy module so that Helm's dependencies never reach the library's go.mod.
package chartrender
