package nodeclassstatus

import (
	"errors"
	"fmt"
	"time"
)

// The maintenance-window ConfigMap AKS writes into the controller's namespace, and the keys of the
// node-OS channel (upstream: pkg/controllers/nodeclass/status/images.go).
const (
	MaintenanceWindowConfigMap = "upcoming-maintenance-window"
	NodeOSChannel              = "aksManagedNodeOSUpgradeSchedule"
	windowStartKey             = NodeOSChannel + "-start"
	windowEndKey               = NodeOSChannel + "-end"
)

// ErrMaintenanceWindow marks a maintenance-window ConfigMap that cannot be read.
var ErrMaintenanceWindow = errors.New("bad maintenance window")

// Window is the next node-OS maintenance window. The zero value is "no window defined", which is
// always open: maintenance is then up to napkit.
type Window struct {
	Defined    bool
	Start, End time.Time
}

// Open reports whether now lies strictly inside the window, or no window is defined.
func (w Window) Open(now time.Time) bool {
	return !w.Defined || (now.After(w.Start) && now.Before(w.End))
}

// ParseWindow reads the ConfigMap's data; nil data (no ConfigMap) and data without the node-OS
// keys mean no window, as upstream fails open. Only one of the two keys, or a time that is not
// RFC 3339, is an error naming the key and value.
func ParseWindow(data map[string]string) (Window, error) {
	start, end := data[windowStartKey], data[windowEndKey]
	switch {
	case start == "" && end == "":
		return Window{}, nil
	case start == "" || end == "":
		return Window{}, fmt.Errorf("ConfigMap %s: %s and %s must both be set, got %q and %q: %w",
			MaintenanceWindowConfigMap, windowStartKey, windowEndKey, start, end, ErrMaintenanceWindow)
	}
	s, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return Window{}, fmt.Errorf("ConfigMap %s: %s %q is not RFC 3339: %w", MaintenanceWindowConfigMap, windowStartKey, start, ErrMaintenanceWindow)
	}
	e, err := time.Parse(time.RFC3339, end)
	if err != nil {
		return Window{}, fmt.Errorf("ConfigMap %s: %s %q is not RFC 3339: %w", MaintenanceWindowConfigMap, windowEndKey, end, ErrMaintenanceWindow)
	}
	return Window{Defined: true, Start: s.UTC(), End: e.UTC()}, nil
}
