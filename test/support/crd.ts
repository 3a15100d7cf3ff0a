export { installCrd, installCrds, TFJOB_CRD_FILE as CRD_FILE } from '../../lab/local-cluster/crd.ts';
