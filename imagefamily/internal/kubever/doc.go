// Package kubever parses and compares Kubernetes versions such as "1.33.2" or "v1.34.0". It is shared
// by imagefamily and its bootstrap package, which both gate behaviour on the cluster's version.
package kubever
