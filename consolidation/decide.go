package consolidation

// Decide runs one disruption pass over the snapshot and returns its commands.
func Decide(in Input) (*Plan, error) {
	return &Plan{Kind: PlanKind, Commands: []Command{}, Blocked: []Blocked{}}, nil
}
