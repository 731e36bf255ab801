package imagefamily

// Mode is a provisioning mode: how the VM is created and where its bootstrap data comes from.
type Mode string

// The provisioning modes of the seed documents.
const (
	// ModeScriptless creates the VM directly and renders its customData (a bash script) locally.
	ModeScriptless Mode = "aksscriptless"
	// ModeBootstrappingClient creates the VM directly with customData and a custom script extension
	// fetched from the AKS node bootstrapping service.
	ModeBootstrappingClient Mode = "bootstrappingclient"
	// ModeMachineAPI creates an AKS Machine resource; AKS builds and bootstraps the VM.
	ModeMachineAPI Mode = "aksmachineapi"
	// ModeMachineAPIHeaderBatch is ModeMachineAPI with concurrent creates batched into one request.
	ModeMachineAPIHeaderBatch Mode = "aksmachineapiheaderbatch"
)

// Modes lists every mode in a fixed order, for help texts and error messages.
func Modes() []Mode {
	return []Mode{ModeScriptless, ModeBootstrappingClient, ModeMachineAPI, ModeMachineAPIHeaderBatch}
}

// Resolve maps "" to ModeScriptless (the default of karpenter-provider-azure) and rejects unknown
// modes with an *api.FieldError of class ErrInvalid.
func (m Mode) Resolve() (Mode, error) {
	switch m {
	case "":
		return ModeScriptless, nil
	case ModeScriptless, ModeBootstrappingClient, ModeMachineAPI, ModeMachineAPIHeaderBatch:
		return m, nil
	default:
		return m, newError(ErrInvalid, "mode", string(m), "must be one of %v", Modes())
	}
}

// IsMachineAPI reports whether AKS, not napkit, builds the VM and its bootstrap data. Only these
// modes can create Windows nodes, because only AKS can bootstrap them.
func (m Mode) IsMachineAPI() bool {
	return m == ModeMachineAPI || m == ModeMachineAPIHeaderBatch
}
