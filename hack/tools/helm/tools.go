//go:build tools

// Package tools pins helm, which lints the chart and dry-runs its install against the local
// control plane in the tests (charts/tfjob-operator).
package tools

import _ "helm.sh/helm/v3/cmd/helm"
