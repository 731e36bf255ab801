package controller

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/napkit/napkit/consolidation"
)

// validate re-checks plan's commands on the cluster as it is after the validation delay. A plan of
// Empty and Underutilized commands is simulated again command by command (consolidation.Validate,
// Karpenter's validation), and a command holds when the new simulation confirms it (confirms: the
// same kind, nodes and replacements, launch lists within the decided ones). A plan with drift or
// expiration is decided again, and its commands hold when the new decision proposes them too.
// When none holds, again is a fresh decision the next pass may start from. wake is wakeAt of the
// validation's snapshot, the newer view for a loop that goes idle afterwards.
func (c *Controller) validate(ctx context.Context, plan *consolidation.Plan) (confirmed []consolidation.Command, again *consolidation.Plan, wake time.Time, err error) {
	s := c.takeSnapshot()
	wake = c.wakeAt(s)
	simulated := !slices.ContainsFunc(plan.Commands, func(cmd consolidation.Command) bool {
		return cmd.Reason != consolidation.ReasonEmpty && cmd.Reason != consolidation.ReasonUnderutilized
	})
	if simulated {
		if confirmed, err = c.resimulate(ctx, s, plan.Commands); err != nil || len(confirmed) > 0 {
			return confirmed, nil, wake, err
		}
	}
	if again, err = consolidation.Decide(c.consolidationInput(ctx, s)); err != nil {
		return nil, nil, wake, fmt.Errorf("validate: %w", err)
	}
	if !simulated {
		confirmed = confirmedCommands(plan, again, c.log)
	}
	return confirmed, again, wake, nil
}

// resimulate is consolidation.Validate over cmds, read as the commands that still hold; the
// others are logged with the reason.
func (c *Controller) resimulate(ctx context.Context, s *clusterSnapshot, cmds []consolidation.Command) ([]consolidation.Command, error) {
	verdicts, err := consolidation.Validate(c.consolidationInput(ctx, s), cmds)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	var out []consolidation.Command
	for i, v := range verdicts {
		switch {
		case v.Command == nil:
			c.log.Info("command no longer valid", "command", describe(cmds[i]), "reason", v.Why)
		case !confirms(*v.Command, cmds[i]):
			c.log.Info("command no longer valid", "command", describe(cmds[i]), "reason", "its replacement may now launch other instance types")
		default:
			out = append(out, cmds[i])
		}
	}
	return out, nil
}

// confirmedCommands are plan's commands that again, the validation's decision, confirms; the
// others are logged.
func confirmedCommands(plan, again *consolidation.Plan, log *slog.Logger) []consolidation.Command {
	var out []consolidation.Command
	for _, cmd := range plan.Commands {
		if !slices.ContainsFunc(again.Commands, func(x consolidation.Command) bool { return confirms(x, cmd) }) {
			log.Info("command no longer valid", "command", describe(cmd))
			continue
		}
		out = append(out, cmd)
	}
	return out
}
