package launch

import (
	"context"
	"time"
)

// Launcher creates and removes the machines behind NodeClaims. Implement it
// for another cloud, or fake it in tests; package launch/azure's Launcher is
// the Azure one.
type Launcher interface {
	// Create launches one of req's offerings and returns the instance. An
	// instance that already exists for req.NodeClaimName is returned as is,
	// so a retried or restarted launch never makes a second machine. Errors
	// are *LaunchError; errors.Is(err, ErrInsufficientCapacity) means the
	// offerings tried are out of stock and the caller should re-plan.
	Create(ctx context.Context, req *Request) (*Instance, error)
	// Delete removes the instance and its network interface. An instance
	// that is already gone, or already being deleted, is not an error.
	Delete(ctx context.Context, providerID string) error
	// Get returns the instance; ErrNotFound when there is none and
	// ErrInvalidProviderID when the ID is malformed or foreign.
	Get(ctx context.Context, providerID string) (*Instance, error)
	// List returns every instance the launcher owns, ordered by name.
	List(ctx context.Context) ([]*Instance, error)
}

// NodeClaimFinder is implemented by launchers that find a NodeClaim's instance without listing
// every instance: their instance names derive from the NodeClaim's name. A caller that must
// remove the instance of a NodeClaim whose launch never reported a provider ID uses it when the
// launcher has it, and List otherwise. The error wraps ErrNotFound when there is no instance.
type NodeClaimFinder interface {
	FindByNodeClaim(ctx context.Context, nodeClaimName string) (*Instance, error)
}

// GCResult lists what one garbage-collection pass deleted, by resource name.
type GCResult struct {
	DeletedVMs      []string
	DeletedNICs     []string
	DeletedMachines []string
}

// DefaultMaxAttempts is how many offerings one launch tries before it gives up.
const DefaultMaxAttempts = 3

// State is an instance's provisioning state.
type State string

// Instance provisioning states, as ARM reports them.
const (
	StateCreating  State = "Creating"
	StateUpdating  State = "Updating"
	StateSucceeded State = "Succeeded"
	StateFailed    State = "Failed"
	StateDeleting  State = "Deleting"
	StateUnknown   State = "Unknown"
)

// Instance is a launched machine as the cloud reports it.
type Instance struct {
	// Name is the VM name, aks-<NodeClaimName>.
	Name string
	// ProviderID is the Kubernetes provider ID of the VM.
	ProviderID string
	// SKU is the VM size.
	SKU string
	// Zone is the zone label, "<region>-<n>", or RegionalZone.
	Zone string
	// CapacityType is CapacityTypeSpot or CapacityTypeOnDemand.
	CapacityType string
	// NodeClaimName and NodePool identify the owner.
	NodeClaimName string
	NodePool      string
	// ImageID is the image the VM booted from.
	ImageID string
	// Tags are the VM's tags.
	Tags map[string]string
	// State is the provisioning state.
	State State
	// CreatedAt is when ARM created the VM (zero when unknown).
	CreatedAt time.Time
}
