// Command controller is napkit's example node autoprovisioning controller for AKS.
//
// Without flags it runs the seed walkthrough in-process (client-go's fake API server, the simulated
// Azure) and ends with one summary line:
//
//	go run ./examples/controller
//
// With --kubeconfig (or inside a pod) it manages that cluster on real Azure: the Azure and cluster
// settings (--subscription-id, --resource-group, --cluster-name, --subnet-id, --ca-file, ...) are
// required, and a missing or wrong one stops it at start naming the flag (in a pod it then stays up
// unready: /healthz 200, /readyz 500 with the error). Only --simulate swaps in
// the simulated Azure and simulated kubelets (fake nodes in that cluster; the log says so).
// --version prints the build.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/napkit/napkit/examples/controller/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
