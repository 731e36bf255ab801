package main

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/big"
	"os"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"sigs.k8s.io/yaml"
)

// bootstrapFlags are the inputs of `napkit bootstrap`; every cluster setting has a documented default
// so the command runs offline.
type bootstrapFlags struct {
	cat                                        catalogueFlags
	files                                      manifestFiles
	output                                     outputFlag
	nodePool, instanceType, zone, capacityType string
	mode, kubernetesVersion, imageVersion      string
	caFile, token                              string
	cluster                                    bootstrap.Cluster
	showSecrets                                bool
}

func (b *bootstrapFlags) register(fs *flag.FlagSet) {
	b.cat.register(fs)
	fs.Var(&b.files, "f", "manifest file or directory holding the NodePool and its AKSNodeClass (repeatable; - reads standard input)")
	b.output.register(fs, "json", "json", "yaml")
	fs.StringVar(&b.nodePool, "nodepool", "", "NodePool name (required)")
	fs.StringVar(&b.instanceType, "instance-type", "", "VM size, e.g. Standard_D4s_v5 (required)")
	fs.StringVar(&b.zone, "zone", "", `zone label, e.g. eastus-1; "" or 0 for a regional VM`)
	fs.StringVar(&b.capacityType, "capacity-type", api.CapacityTypeOnDemand, "on-demand or spot")
	fs.StringVar(&b.mode, "mode", string(imagefamily.ModeScriptless), "aksscriptless, bootstrappingclient, aksmachineapi or aksmachineapiheaderbatch")
	fs.StringVar(&b.kubernetesVersion, "kubernetes-version", "1.33.2", "cluster Kubernetes version")
	fs.StringVar(&b.imageVersion, "image-version", "202611.01.0", "node image version to boot")
	fs.StringVar(&b.caFile, "ca-file", "", "cluster CA certificate (PEM); default: a fixed placeholder CA")
	fs.StringVar(&b.token, "bootstrap-token", "abcdef.0123456789abcdef", "TLS bootstrap token <id>.<secret>")
	fs.StringVar(&b.cluster.ClusterName, "cluster-name", "napkit", "AKS cluster name")
	fs.StringVar(&b.cluster.APIServerHost, "api-server", "napkit-dns-00000000.hcp.eastus.azmk8s.io", "API server host")
	fs.StringVar(&b.cluster.TenantID, "tenant-id", "00000000-0000-0000-0000-000000000000", "Azure tenant ID")
	fs.StringVar(&b.cluster.SubscriptionID, "subscription-id", "00000000-0000-0000-0000-000000000000", "Azure subscription ID")
	fs.StringVar(&b.cluster.NodeResourceGroup, "node-resource-group", "MC_napkit_napkit_eastus", "node resource group")
	fs.StringVar(&b.cluster.SubnetID, "subnet-id", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/MC_napkit_napkit_eastus/providers/Microsoft.Network/virtualNetworks/aks-vnet-00000000/subnets/aks-subnet", "node subnet ARM ID")
	fs.StringVar(&b.cluster.VNETGUID, "vnet-guid", "00000000-0000-0000-0000-000000000001", "node VNET resourceGuid")
	fs.StringVar(&b.cluster.ClusterID, "cluster-id", "00000000", "8-digit AKS cluster ID")
	fs.StringVar(&b.cluster.KubeletIdentityClientID, "kubelet-identity-client-id", "00000000-0000-0000-0000-000000000002", "kubelet managed identity client ID")
	fs.StringVar(&b.cluster.ClusterDNS, "dns-service-ip", "10.0.0.10", "cluster DNS service IP")
	fs.BoolVar(&b.showSecrets, "show-secrets", false, "print the bootstrap token instead of <redacted>")
}

func runBootstrap(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	var b bootstrapFlags
	b.register(fs)
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	if err := b.output.validate(); err != nil {
		return err
	}
	opts, err := b.requestOptions(stdin, stderr)
	if err != nil {
		return err
	}
	// The library's one launch path: the request a controller would give its launcher; the output
	// is what the planned node boots.
	req, err := launch.RequestFor(context.Background(), opts)
	if err != nil {
		return flagError(err)
	}
	data, err := req.Planned.JSON(b.showSecrets)
	if err != nil {
		return err
	}
	if b.output.value == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	}
	_, err = stdout.Write(data)
	return err
}

// requestOptions turn the flags into RequestFor's options: a NodeClaim of the NodePool's template
// pinned to the chosen size, zone and capacity type, its AKSNodeClass and catalogue, and the cluster.
func (b *bootstrapFlags) requestOptions(stdin io.Reader, stderr io.Writer) (launch.RequestOptions, error) {
	switch {
	case b.nodePool == "":
		return launch.RequestOptions{}, usagef("--nodepool is required")
	case b.instanceType == "":
		return launch.RequestOptions{}, usagef("--instance-type is required")
	}
	set, err := b.files.read(stdin, stderr)
	if err != nil {
		return launch.RequestOptions{}, err
	}
	pool := set.NodePool(b.nodePool)
	if pool == nil {
		return launch.RequestOptions{}, usagef("--nodepool: no NodePool %q in %s", b.nodePool, b.files.String())
	}
	nodeClass := set.NodeClass(pool.Spec.Template.Spec.NodeClassRef.Name)
	if nodeClass == nil {
		return launch.RequestOptions{}, fmt.Errorf("NodePool %s: AKSNodeClass %q not found in %s", pool.Name, pool.Spec.Template.Spec.NodeClassRef.Name, b.files.String())
	}
	cat, err := b.catalogue(pool, nodeClass)
	if err != nil {
		return launch.RequestOptions{}, err
	}
	cluster, err := b.clusterSettings()
	if err != nil {
		return launch.RequestOptions{}, err
	}
	return launch.RequestOptions{
		NodeClaim: b.nodeClaim(pool), NodeClass: nodeClass, Catalogue: cat, Mode: imagefamily.Mode(b.mode),
		Cluster: launch.ClusterSettings{Cluster: cluster}, Images: imagefamily.ImageOptions{Version: b.imageVersion},
	}, nil
}

// catalogue builds the catalogue for the node class, so the kubelet flags carry exactly the
// reservation the scheduler planned with. The placement (size, zone, capacity type) must be one the
// NodePool could launch: imagefamily.CheckPlacement decides.
func (b *bootstrapFlags) catalogue(pool *api.NodePool, nodeClass *api.AKSNodeClass) (*instancetype.Catalogue, error) {
	built, err := b.cat.loadFor(nodeClass)
	if err != nil {
		return nil, err
	}
	it, ok := built.Find(b.instanceType)
	if !ok {
		return nil, usagef("--instance-type: %q is not an instance type of %s for AKSNodeClass %s (see napkit instance-types -o json for exclusions)", b.instanceType, b.cat.region, nodeClass.Name)
	}
	err = imagefamily.CheckPlacement(imagefamily.Placement{NodePool: pool, InstanceType: it, Zone: b.zone, CapacityType: b.capacityType})
	if err != nil {
		return nil, flagError(err)
	}
	return built.Catalogue, nil
}

// nodeClaim is the claim the NodePool would make for the chosen size, zone and capacity type.
func (b *bootstrapFlags) nodeClaim(pool *api.NodePool) *api.NodeClaim {
	tmpl := pool.Spec.Template
	labels := maps.Clone(tmpl.ObjectMeta.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.LabelNodePool] = pool.Name
	zone := b.zone
	if zone == "" {
		zone = api.RegionalZone
	}
	pin := func(key, value string) api.NodeSelectorRequirementWithMinValues {
		return api.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
	}
	reqs := append(slices.Clone(tmpl.Spec.Requirements), pin(api.LabelInstanceType, b.instanceType),
		pin(api.LabelZone, zone), pin(api.LabelCapacityType, b.capacityType))
	return &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: pool.Name + "-bootstrap", Labels: labels},
		Spec: api.NodeClaimSpec{Taints: tmpl.Spec.Taints, StartupTaints: tmpl.Spec.StartupTaints, Requirements: reqs,
			NodeClassRef: tmpl.Spec.NodeClassRef},
	}
}

// placementFlags name the flag behind each field imagefamily checks.
var placementFlags = map[string]string{
	imagefamily.FieldInstanceType: "--instance-type",
	imagefamily.FieldZone:         "--zone",
	imagefamily.FieldCapacityType: "--capacity-type",
	"mode":                        "--mode",
	"image version":               "--image-version",
	"kubernetesVersion":           "--kubernetes-version",
}

// fromImageFamily tells imagefamily's field errors (the only ones placementFlags names) from the
// bootstrap package's, which share the one error type.
func fromImageFamily(fe *api.FieldError) bool {
	return slices.ContainsFunc([]error{imagefamily.ErrInvalid, imagefamily.ErrUnsupported, imagefamily.ErrNoImage,
		imagefamily.ErrNoImageVersion}, func(class error) bool { return errors.Is(fe.Kind, class) })
}

// flagError turns an imagefamily error about a placement field into a usage error naming its flag.
func flagError(err error) error {
	var fe *api.FieldError
	if errors.As(err, &fe) && fromImageFamily(fe) {
		if name, ok := placementFlags[fe.Field]; ok {
			return &usageError{err: &relabeled{msg: fmt.Sprintf("%s %s: %s", name, fe.ValueString(), fe.Reason), err: err}}
		}
	}
	return err
}

func (b *bootstrapFlags) clusterSettings() (bootstrap.Cluster, error) {
	cluster := b.cluster
	cluster.KubernetesVersion = b.kubernetesVersion
	cluster.Location = b.cat.region
	cluster.Network = b.cat.network
	cluster.BootstrapToken = bootstrap.NewSecret(b.token)
	ca, err := b.caCertificate()
	if err != nil {
		return bootstrap.Cluster{}, err
	}
	cluster.CACertificate = ca
	return cluster, nil
}

func (b *bootstrapFlags) caCertificate() ([]byte, error) {
	if b.caFile != "" {
		data, err := os.ReadFile(b.caFile)
		if err != nil {
			return nil, fmt.Errorf("--ca-file: %w", err)
		}
		return data, nil
	}
	return placeholderCA()
}

// placeholderCA is a fixed self-signed certificate for offline runs: an Ed25519 key from an all-zero
// seed signs deterministically, so the output stays byte-identical between runs.
func placeholderCA() ([]byte, error) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "napkit placeholder CA"},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("placeholder CA: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
