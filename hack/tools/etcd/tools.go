//go:build tools

// Package tools pins the etcd server that hack/ builds for the local control plane. It lives in its own
// module so minimal version selection does not mix etcd's dependencies with Kubernetes'.
package tools

import _ "go.etcd.io/etcd/server/v3"
