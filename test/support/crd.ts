export { installCrd, installCrds, TFJOB_CRD_FILE as CRD_FILE } from '../../src/local-cluster/crd.ts';
