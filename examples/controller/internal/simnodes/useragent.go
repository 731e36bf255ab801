package simnodes

// UserAgent is what the simulated kubelets' client should send: in the API server's audit log
// it tells their requests from the controller's, which run under the same ServiceAccount in a
// --simulate deployment (the chart grants them separately, only under --simulate).
const UserAgent = "napkit-simulated-kubelet"
