package consolidation

// expire deletes every expired node, one command each, in name order. Expiration is forceful, as
// in Karpenter's expiration controller: no budget holds it back (the node still counts against the
// graceful methods' budgets afterwards) and no blocker stops it. Nor does it pre-spin a
// replacement: the pods reschedule through ordinary provisioning, so the moves are reported from
// a simulation that may open new NodeClaims; a pod bound for such a claim is reported with To ""
// (it waits for provisioning), and SavingsPerHour nets out what that new capacity would cost.
func (p *pass) expire() error {
	for _, c := range p.cands {
		if !c.expired || !p.available(c) {
			continue
		}
		d, err := p.forcefulDelete(ReasonExpired, "", []*candidate{c})
		if err != nil {
			return err
		}
		p.commit(d)
	}
	return nil
}

// forcefulDelete drafts a delete whose pods go wherever provisioning would put them.
func (p *pass) forcefulDelete(reason Reason, detail string, nodes []*candidate) (draft, error) {
	d := draft{kind: CommandDelete, reason: reason, detail: detail, nodes: nodes, out: &outcome{source: map[string]string{}}}
	for _, c := range nodes {
		d.savings += c.price
	}
	if !hasPods(nodes) {
		return d, nil
	}
	plan, err := p.simulate(nodes, simulation{allowNew: true})
	if err != nil {
		return d, err
	}
	d.out = evaluate(nodes, plan)
	if _, worst, why := p.prices.priceAll(d.out.claims, replaceRule{anyPrice: true}); why == "" {
		d.savings -= worst
	}
	return d, nil
}

// hasPods reports whether any of the nodes hosts a pod that has to move.
func hasPods(nodes []*candidate) bool {
	for _, c := range nodes {
		if len(c.pods) > 0 {
			return true
		}
	}
	return false
}
