package controller

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// maxLaunchAttempts is how many offerings one NodeClaim tries before it fails and the pods are
// planned again (the launcher's own default).
const maxLaunchAttempts = launch.DefaultMaxAttempts

// startLaunch launches the claim in the background, at most MaxConcurrentLaunches at once, unless
// its launch is already running.
func (c *Controller) startLaunch(ctx context.Context, nc *api.NodeClaim) {
	if !c.state.startLaunch(nc.Name) {
		return
	}
	go func() {
		defer c.state.endLaunch(nc.Name)
		select {
		case c.launchSlots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-c.launchSlots }()
		if err := c.launch(ctx, nc); err != nil && ctx.Err() == nil {
			c.log.Error("launch failed", "nodeClaim", nc.Name, "error", err)
		}
	}()
}

// launch picks an offering from the claim's launch list, renders the node's bootstrap data for
// exactly that size and zone, and creates the VM. An offering out of capacity is marked in the
// cache by the launcher, so the next attempt (and the next plan) avoids it.
func (c *Controller) launch(ctx context.Context, nc *api.NodeClaim) error {
	lc, err := c.launchContext(nc)
	if err != nil {
		return c.failLaunch(ctx, nc, err)
	}
	var lastErr error
	for attempt := range maxLaunchAttempts {
		choice, ok := launch.Choose(lc.candidates, c.cfg.Offerings, c.rand(nc.Name, attempt))
		if !ok {
			lastErr = errors.Join(lastErr, errors.New("no available offering left in the launch list"))
			break
		}
		inst, err := c.create(ctx, lc, choice)
		if err == nil {
			return c.markLaunched(ctx, nc.Name, inst, lc.cat)
		}
		lastErr = err
		if !errors.Is(err, launch.ErrInsufficientCapacity) {
			break
		}
	}
	return c.failLaunch(ctx, nc, lastErr)
}

// launchContext is what every attempt of one NodeClaim shares.
type launchContext struct {
	claim      *api.NodeClaim
	class      *api.AKSNodeClass
	cat        *instancetype.Catalogue
	candidates []launch.Candidate
}

func (c *Controller) launchContext(nc *api.NodeClaim) (*launchContext, error) {
	if nc.Spec.NodeClassRef == nil {
		return nil, errors.New("spec.nodeClassRef is not set")
	}
	class := c.nodeClass(nc.Spec.NodeClassRef.Name)
	if class == nil {
		return nil, fmt.Errorf("AKSNodeClass %q not found", nc.Spec.NodeClassRef.Name)
	}
	cat, err := c.catalogues.get(class)
	if err != nil {
		return nil, err
	}
	return &launchContext{claim: nc, class: class, cat: cat, candidates: claimCandidates(nc, cat)}, nil
}

// create renders the bootstrap data for the choice and creates the VM with only that offering, so
// the node's labels (zone, capacity type) and kubelet reservations match what it really is.
func (c *Controller) create(ctx context.Context, lc *launchContext, choice launch.Choice) (*launch.Instance, error) {
	it, ok := lc.cat.Find(choice.Candidate.SKU)
	if !ok {
		return nil, fmt.Errorf("instance type %s is not in the catalogue", choice.Candidate.SKU)
	}
	nc := lc.claim
	cluster, images, err := c.bootSettings(lc.class)
	if err != nil {
		return nil, err
	}
	out, err := imagefamily.Generate(imagefamily.Input{
		NodeClass: lc.class, Shape: imagefamily.ShapeOf(it), Zone: choice.Offering.Zone,
		CapacityType: choice.Offering.CapacityType, NodePool: nc.Labels[api.LabelNodePool], NodeClaim: nc.Name,
		Labels: nc.Labels, Taints: nc.Spec.Taints, StartupTaints: nc.Spec.StartupTaints,
		Cluster: cluster, Images: images,
	})
	if err != nil {
		return nil, fmt.Errorf("bootstrap data for %s: %w", it.Name, err)
	}
	one := choice.Candidate
	one.Offerings = []launch.Offering{choice.Offering}
	req := &launch.Request{
		NodeClaimName: nc.Name, NodePool: nc.Labels[api.LabelNodePool], Candidates: []launch.Candidate{one},
		Image: imageRef(out.Image.Reference), CustomData: launch.Secret(out.CustomData.Reveal()),
		OSDiskSizeGB: osDiskSizeGB(lc.class), SubnetID: subnetID(lc.class, c.cfg.Cluster.SubnetID),
		SSHPublicKey: c.cfg.SSHPublicKey, EncryptionAtHost: encryptionAtHost(lc.class), Tags: lc.class.Spec.Tags,
	}
	return c.cfg.Launcher.Create(ctx, req)
}

// rand is the tie-break source of one attempt: the same seed and claim give the same choices.
func (c *Controller) rand(name string, attempt int) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return rand.New(rand.NewPCG(c.cfg.Seed+uint64(attempt), h.Sum64()))
}

func imageRef(ref imagefamily.ImageReference) launch.ImageRef {
	if ref.Kind == imagefamily.CommunityGallery {
		return launch.ImageRef{CommunityGalleryImageID: ref.ID}
	}
	return launch.ImageRef{SharedGalleryID: ref.ID}
}

func osDiskSizeGB(class *api.AKSNodeClass) int32 {
	if class.Spec.OSDiskSizeGB != nil {
		return *class.Spec.OSDiskSizeGB
	}
	return 128 // the CRD default
}

func subnetID(class *api.AKSNodeClass, clusterSubnet string) string {
	if class.Spec.VNETSubnetID != nil && *class.Spec.VNETSubnetID != "" {
		return *class.Spec.VNETSubnetID
	}
	return clusterSubnet
}

func encryptionAtHost(class *api.AKSNodeClass) bool {
	s := class.Spec.Security
	return s != nil && s.EncryptionAtHost != nil && *s.EncryptionAtHost
}
