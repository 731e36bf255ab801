package provisioner

// Code classifies why a pod is unschedulable. The codes are stable; the Reason text next to them
// names the constraint, the NodePool and the nearest miss.
type Code string

// Reason codes, in the order a pod meets the checks (a later code means the pod got further).
const (
	// CodeNoNodePool: no NodePool was given and no existing node can take the pod.
	CodeNoNodePool Code = "NoNodePool"
	// CodeSchedulingGated: the pod still has scheduling gates.
	CodeSchedulingGated Code = "SchedulingGated"
	// CodeUnsupported: the pod uses a constraint napkit cannot plan for (e.g. matchFields).
	CodeUnsupported Code = "Unsupported"
	// CodeVolume: a PersistentVolumeClaim is missing or its volume cannot be reached.
	CodeVolume Code = "VolumeNotFound"
	// CodeTaint: a NodePool taint (or every existing node's taint) is not tolerated.
	CodeTaint Code = "TaintNotTolerated"
	// CodeRequirements: nodeSelector or required node affinity matches nothing the NodePool allows.
	CodeRequirements Code = "IncompatibleRequirements"
	// CodeVolumeTopology: a bound volume's zone is not one the NodePool can launch in.
	CodeVolumeTopology Code = "VolumeTopology"
	// CodeResources: no allowed instance type is large enough (DaemonSet overhead included).
	CodeResources Code = "InsufficientResources"
	// CodeHostPort: a host port clashes with a DaemonSet or with pods on every candidate node.
	CodeHostPort Code = "HostPortConflict"
	// CodeNoOffering: the instance types that fit have no available offering the pod allows.
	CodeNoOffering Code = "NoAvailableOffering"
	// CodeLimits: the NodePool's limits leave no room for a node that fits.
	CodeLimits Code = "NodePoolLimitReached"
	// CodeMinValues: the NodeClaim could not keep a requirement's minValues.
	CodeMinValues Code = "MinValuesNotMet"
	// CodeTopologySpread: placing the pod would break a DoNotSchedule topology spread constraint.
	CodeTopologySpread Code = "TopologySpread"
	// CodePodAffinity: no domain holds the pods the pod's required affinity asks for.
	CodePodAffinity Code = "PodAffinity"
	// CodePodAntiAffinity: every domain the pod could use holds pods its anti-affinity excludes
	// (or pods whose anti-affinity excludes it).
	CodePodAntiAffinity Code = "PodAntiAffinity"
)

// stage orders codes by how far a pod got; the explanation reports the furthest.
func (c Code) stage() int {
	switch c {
	case CodeNoNodePool:
		return 0
	case CodeSchedulingGated, CodeUnsupported, CodeVolume:
		return 1
	case CodeTaint:
		return 2
	case CodeRequirements:
		return 3
	case CodeVolumeTopology:
		return 4
	case CodeResources:
		return 5
	case CodeHostPort:
		return 6
	case CodeNoOffering:
		return 7
	case CodeLimits:
		return 8
	case CodeMinValues:
		return 9
	default:
		return 10
	}
}
