// Package controller wires napkit's library into a Kubernetes controller: pending pods are planned by
// the provisioner and launched through a launch.Launcher, nodes are registered and initialized, and
// consolidation, drift and expiration commands are executed through the termination finalizer.
package controller
