package azure

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// This file is the AKS Machine API client: requests built here, sent through
// the azcore ARM pipeline of the launcher's options (so authentication,
// retries, Retry-After and the transport seam are the same as for VMs), and
// long-running operations followed by azcore's own poller.

// agentPoolPath is the ARM path of the launcher's machines pool.
func (l *Launcher) agentPoolPath() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.ContainerService/managedClusters/%s/agentPools/%s",
		url.PathEscape(l.opts.SubscriptionID), url.PathEscape(l.opts.ClusterResourceGroup),
		url.PathEscape(l.opts.ClusterName), url.PathEscape(l.opts.MachinesPool))
}

// machinePath is the ARM path of one machine, or of the list without a name.
func (l *Launcher) machinePath(name string) string {
	if name == "" {
		return l.agentPoolPath() + "/machines"
	}
	return l.agentPoolPath() + "/machines/" + url.PathEscape(name)
}

// machineRequest builds a request at the Machine API version; body, when not
// nil, is sent as JSON.
func (l *Launcher) machineRequest(ctx context.Context, method, path string, body any) (*policy.Request, error) {
	req, err := runtime.NewRequest(ctx, method, runtime.JoinPaths(l.machines.Endpoint(), path))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", l.opts.MachineAPIVersion)
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header.Set("Accept", "application/json")
	if body != nil {
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// send runs req through the pipeline; other statuses than ok become an
// *azcore.ResponseError.
func (l *Launcher) send(req *policy.Request, ok ...int) (*http.Response, error) {
	resp, err := l.machines.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if !runtime.HasStatusCode(resp, ok...) {
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}

// putMachine creates or updates a machine. The launcher follows the machine it made, not the
// operation ARM starts for it (waitMachine), so the operation's URL is not kept.
func (l *Launcher) putMachine(ctx context.Context, name string, body any) error {
	req, err := l.machineRequest(ctx, http.MethodPut, l.machinePath(name), body)
	if err != nil {
		return err
	}
	_, err = l.send(req, http.StatusOK, http.StatusCreated)
	return err
}

// getMachine reads one machine.
func (l *Launcher) getMachine(ctx context.Context, name string) (*machineResource, error) {
	req, err := l.machineRequest(ctx, http.MethodGet, l.machinePath(name), nil)
	if err != nil {
		return nil, err
	}
	resp, err := l.send(req, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var m machineResource
	if err := runtime.UnmarshalAsJSON(resp, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// listMachinePages reads every page of the pool's machines and says how many pages (reads) it took.
func (l *Launcher) listMachinePages(ctx context.Context) ([]*machineResource, int, error) {
	var all []*machineResource
	pages := 0
	req, err := l.machineRequest(ctx, http.MethodGet, l.machinePath(""), nil)
	for err == nil && req != nil {
		var page machinePage
		page, err = l.machinePage(req)
		pages++
		all = append(all, page.Value...)
		req = nil
		if err == nil && page.NextLink != "" {
			req, err = runtime.NewRequest(ctx, http.MethodGet, page.NextLink)
		}
	}
	return all, pages, err
}

// machinePage is one page of a machine list.
type machinePage struct {
	Value    []*machineResource `json:"value"`
	NextLink string             `json:"nextLink"`
}

func (l *Launcher) machinePage(req *policy.Request) (machinePage, error) {
	var page machinePage
	resp, err := l.send(req, http.StatusOK)
	if err == nil {
		err = runtime.UnmarshalAsJSON(resp, &page)
	}
	return page, err
}

// deleteMachines deletes machines through the pool's deleteMachines action,
// which takes many names in one call, and waits for it.
func (l *Launcher) deleteMachines(ctx context.Context, names []string) error {
	body := map[string][]string{"machineNames": names}
	req, err := l.machineRequest(ctx, http.MethodPost, l.agentPoolPath()+"/deleteMachines", body)
	if err != nil {
		return err
	}
	resp, err := l.send(req, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
	if err != nil {
		return err
	}
	poller, err := runtime.NewPoller[struct{}](resp, l.machines.Pipeline(), nil)
	if err != nil {
		return err
	}
	return pollSucceeded(ctx, poller, l.pace)
}
