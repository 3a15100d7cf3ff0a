// The parts of `testcontainers` and `@testcontainers/k3s` (12.x) this suite uses, loaded at run time.
// They are optional devDependencies of a suite that needs a Docker engine, so the type-check of the
// repository must not depend on them being installed: the modules are imported by a computed name and
// described by the small interfaces below (which match their 12.x declarations).

export interface ExecResult {
  output: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface StartedK3sContainer {
  getKubeConfig(): string;
  exec(command: string[]): Promise<ExecResult>;
  stop(): Promise<unknown>;
}

export interface K3sContainer {
  withCopyFilesToContainer(files: { source: string; target: string; mode?: number }[]): this;
  withCopyDirectoriesToContainer(dirs: { source: string; target: string }[]): this;
  withCopyContentToContainer(contents: { content: string; target: string; mode?: number }[]): this;
  start(): Promise<StartedK3sContainer>;
}

export interface ContainerRuntimeClient {
  info: { containerRuntime: { host: string; serverVersion: number; operatingSystem: string; cpus: number; memory: number } };
  container: { dockerode: { getImage(name: string): { get(): Promise<NodeJS.ReadableStream> } } };
}

export interface Testcontainers {
  GenericContainer: {
    fromDockerfile(
      context: string,
      dockerfileName?: string,
    ): { build(image?: string, options?: { deleteOnExit: boolean }): Promise<unknown> };
  };
  getContainerRuntimeClient(): Promise<ContainerRuntimeClient>;
  K3sContainer: new (image: string) => K3sContainer;
}

const TESTCONTAINERS = 'testcontainers';
const K3S = '@testcontainers/k3s';

export async function loadTestcontainers(): Promise<Testcontainers> {
  const tc = (await import(TESTCONTAINERS)) as Omit<Testcontainers, 'K3sContainer'>;
  const k3s = (await import(K3S)) as Pick<Testcontainers, 'K3sContainer'>;
  return { GenericContainer: tc.GenericContainer, getContainerRuntimeClient: tc.getContainerRuntimeClient, K3sContainer: k3s.K3sContainer };
}

export type DockerCheck = { available: true; engine: string } | { available: false; reason: string };

/** Whether the suite can run here: the modules are installed and testcontainers finds a Docker engine. */
export async function checkDocker(): Promise<DockerCheck> {
  let tc: Testcontainers;
  try {
    tc = await loadTestcontainers();
  } catch (err) {
    return {
      available: false,
      reason: `the devDependencies ${TESTCONTAINERS} and ${K3S} are not installed (${(err as Error).message.split('\n')[0] ?? ''})`,
    };
  }
  try {
    const client = await tc.getContainerRuntimeClient();
    const rt = client.info.containerRuntime;
    return { available: true, engine: `${rt.host} (${rt.operatingSystem}, ${rt.cpus} CPUs, ${(rt.memory / 2 ** 30).toFixed(1)} GiB)` };
  } catch (err) {
    return { available: false, reason: `no Docker engine is reachable: ${(err as Error).message}` };
  }
}
