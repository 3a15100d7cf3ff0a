//go:build tools

// Package tools pins Kubeflow training-operator v1.7.0, the real tf-operator that the benchmarks
// compare against (v1.7.0 has no admission webhooks, so it runs out of cluster without certificates).
package tools

import _ "github.com/kubeflow/training-operator/cmd/training-operator.v1"
