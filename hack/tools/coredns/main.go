// Command coredns is CoreDNS with only the plugins the local control plane's real node needs: cluster
// DNS for headless services (TF_CONFIG names each replica <job>-<type>-<i>.<ns>.svc). Leaving out the
// cloud plugins of the stock build keeps the build to a fraction of its time.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins in the order CoreDNS runs them (the stock build's plugin.cfg order, filtered).
func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
