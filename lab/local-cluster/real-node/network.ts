// The real node's pod network: one Linux bridge with a /24 of the harness's own, CNI's bridge and
// host-local plugins, no masquerading and no port maps (no iptables rules): pod addresses exist only
// on this bridge, and nothing routes them anywhere else. The bridge plugin turns ip_forward on; the
// value found at start is put back at stop.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';

export interface PodNetwork {
  readonly bridge: string;
  /** The bridge's own address: pods' gateway, the node IP, and where cluster DNS listens. */
  readonly gateway: string;
  readonly subnet: string;
  readonly cniConfDir: string;
}

const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';
/** The local control plane's --service-cluster-ip-range. */
export const SERVICE_RANGE = '10.96.0.0/16';
/** Every real node's pod subnet (node n has 10.87.n.0/24). */
const ALL_REAL_NODE_PODS = '10.87.0.0/16';

export function podNetwork(workDir: string, bridge: string, thirdOctet: number): PodNetwork {
  return {
    bridge,
    gateway: `10.87.${thirdOctet}.1`,
    subnet: `10.87.${thirdOctet}.0/24`,
    cniConfDir: path.join(workDir, 'cni', 'net.d'),
  };
}

/** Creates the bridge (so DNS can bind its address before the first pod) and the CNI config. */
export async function createPodNetwork(net: PodNetwork, workDir: string): Promise<{ ipForward: string }> {
  const ipForward = readFileSync(IP_FORWARD, 'utf8').trim();
  mkdirSync(net.cniConfDir, { recursive: true });
  const conflist = {
    cniVersion: '0.4.0',
    name: 'tfjob-realnode',
    plugins: [
      {
        type: 'bridge',
        bridge: net.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: net.subnet, gateway: net.gateway }]],
          // No default route: pods reach their bridge, the Service range (the apiserver's address) and
          // the other real nodes' pods, nothing else.
          // The other real nodes' pod subnets too (10.87.<n>.0/24 on this host): cross-node pod traffic.
          routes: [
            { dst: SERVICE_RANGE, gw: net.gateway },
            { dst: ALL_REAL_NODE_PODS, gw: net.gateway },
          ],
          dataDir: path.join(workDir, 'cni', 'ipam'),
        },
      },
    ],
  };
  writeFileSync(path.join(net.cniConfDir, '10-tfjob-realnode.conflist'), JSON.stringify(conflist, null, 1));
  if (!existsSync(`/sys/class/net/${net.bridge}`)) await run('ip', ['link', 'add', net.bridge, 'type', 'bridge']);
  await run('ip', ['addr', 'replace', `${net.gateway}/24`, 'dev', net.bridge]);
  await run('ip', ['link', 'set', net.bridge, 'up']);
  return { ipForward };
}

/** Removes the bridge (its veths go with their pods' network namespaces) and restores ip_forward. */
export async function removePodNetwork(net: PodNetwork, ipForward: string | undefined): Promise<void> {
  if (existsSync(`/sys/class/net/${net.bridge}`)) await run('ip', ['link', 'delete', net.bridge], { allowFailure: true });
  if (ipForward !== undefined && /^[01]$/.test(ipForward)) writeFileSync(IP_FORWARD, `${ipForward}\n`);
}
