// The dashboard in a real browser (Debian's Chromium, headless, driven by playwright-core) against the
// local control plane with the operator and a small workload: every view renders, a scale-in shows on
// the job's timeline, a user limited to one namespace sees none of another's jobs, odd status does not
// break a view, and the page reconnects when its event stream drops. Screenshots of each view are kept
// in test-artifacts/dashboard/ (ignored by git).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, SchedulingV1Api } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, PLURAL, VERSION } from '../../../src/api/v1/constants.ts';
import { startDashboard, type Dashboard } from '../../../src/dashboard/index.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { ensureChromium, launchChromium, type TestBrowser } from '../../support/browser.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, kubeConfigForToken, uniqueName } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, livePods } from '../../support/tfjob.ts';
import { serviceAccountToken } from '../install/helpers.ts';

const ARTIFACTS = path.resolve('test-artifacts/dashboard');
const skipped = await ensureChromium();
const logger = createLogger({ level: 'silent' });
/** Generous: CI is a busy 2-core machine shared with the rest of the suite. */
const DOM_TIMEOUT = 60_000;

/** Keeps a screenshot of the view, once it is checked for stray values. */
async function shot(page: Page, name: string): Promise<void> {
  await noStrayValues(page);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Text that reads `null`, `undefined` or `NaN` outside a <pre> (the stored status may hold a null): a
 * missing field printed as is. A string, because the test's TypeScript has no DOM types.
 */
const STRAY_VALUES = `(() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (/^null$|\\b(undefined|NaN)\\b/.test(text) && n.parentElement.closest('pre') === null) found.push(text);
  }
  return found;
})()`;

async function noStrayValues(page: Page): Promise<void> {
  expect(await page.evaluate<string[]>(STRAY_VALUES)).toEqual([]);
}

/** Opens a view by its address (a same-page hash change) and waits until it has rendered. */
async function show(page: Page, hash: string, view: string): Promise<void> {
  await page.goto(`${new URL(page.url()).origin}/${hash}`);
  await page.waitForSelector(`body[data-view="${view}"]`, { timeout: DOM_TIMEOUT });
}

/** Waits until a stat's value (its <b>, badge included) reads `text`. */
async function statIs(page: Page, testid: string, text: string): Promise<void> {
  const value = page.locator(`[data-testid="${testid}"] b`).first();
  await eventually(async () => (await value.textContent())?.trim() === text, { what: `${testid} reads ${text}`, timeoutMs: DOM_TIMEOUT });
}

async function getJson<T>(page: Page, apiPath: string): Promise<T> {
  const res = await page.request.get(`${new URL(page.url()).origin}${apiPath}`);
  expect(res.status()).toBe(200);
  return (await res.json()) as T;
}

async function isLive(page: Page): Promise<void> {
  await page.waitForSelector('#live[data-state="live"]', { timeout: DOM_TIMEOUT });
}

/** A Role that may read TFJobs, their pods and events in `namespace` only, and a kubeconfig for it. */
async function namespaceReader(namespace: string): Promise<ReturnType<typeof kubeConfigForToken>> {
  const admin = adminKubeConfig();
  const name = 'dashboard-reader';
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name },
      rules: [
        { apiGroups: [GROUP], resources: [PLURAL], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  return kubeConfigForToken(await serviceAccountToken(admin, namespace, name));
}

describe.skipIf(skipped !== undefined)('the dashboard in a real browser', () => {
  let ns: string;
  let other: string;
  let pool: Pool;
  let operator: Operator;
  let dashboard: Dashboard;
  let browser: TestBrowser;
  let page: Page;
  const highClass = uniqueName('dash-high');
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    ns = await createNamespace('dash');
    cleanups.push(() => deleteNamespace(ns));
    other = await createNamespace('dash-other');
    cleanups.push(() => deleteNamespace(other));
    // Two nodes of 4 cpu: the light job fills them (PS + 6 workers + room), the heavy one preempts.
    pool = await createPool('dash', 2, { cpu: '4', memory: '16Gi' });
    cleanups.push(() => pool.delete());
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: highClass }, value: 1000, description: 'test: dashboard high' } });
    cleanups.push(() => adminKubeConfig().makeApiClient(SchedulingV1Api).deletePriorityClass({ name: highClass }));
    operator = await startOperator(ns, ['--policy', 'ours', ...pool.operatorFlags]);
    cleanups.push(() => operator.stop());
    await createTFJob(
      ns,
      onPool(elasticJob('light', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 1, max: 6 }), pool),
    );
    await eventually(async () => (await livePods(ns, 'light')).filter((p) => p.status?.phase === 'Running').length === 7, {
      what: 'light at 6 workers and its PS, running',
      timeoutMs: 90_000,
    });
    // A job no operator handles (its namespace has none), and one with a status no operator writes.
    await createTFJob(other, elasticJob('elsewhere', { worker: { cpu: '1' }, min: 1, max: 2 }));
    await createTFJob(other, elasticJob('odd', { worker: { cpu: '1' }, min: 1, max: 2 }));
    await adminKubeConfig()
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace: other,
        plural: PLURAL,
        name: 'odd',
        body: [{ op: 'add', path: '/status', value: { conditions: [{ type: 'Running', status: 'True' }], replicaStatuses: {} } }],
      });
    dashboard = await startDashboard({ kubeConfig: adminKubeConfig(), logger, namespaces: [ns, other] });
    cleanups.push(() => dashboard.stop());
    browser = await launchChromium();
    cleanups.push(() => browser.close());
    page = await browser.context.newPage();
    await page.goto(dashboard.url);
    await isLive(page);
  });

  afterAll(async () => {
    // Newest first; whatever the set-up got to before a failure.
    for (const undo of cleanups.reverse()) await undo().catch(() => undefined);
  });

  it('renders the jobs, cluster, queues and job views', async () => {
    await show(page, '#/jobs', 'jobs');
    await page.waitForSelector(`[data-job="${ns}/light"]`, { timeout: DOM_TIMEOUT });
    await page.waitForSelector(`[data-job="${other}/odd"]`, { timeout: DOM_TIMEOUT });
    await shot(page, 'jobs');

    await show(page, '#/cluster', 'cluster');
    // Each pool node is drawn with the light job's pods on it.
    for (const node of pool.nodes) await page.waitForSelector(`[data-node="${node}"] [data-job="${ns}/light"]`, { timeout: DOM_TIMEOUT });
    await shot(page, 'cluster');

    await show(page, '#/queues', 'queues');
    await page.waitForSelector('[data-testid="clusterqueues"], [data-testid="no-queues"]', { timeout: DOM_TIMEOUT });
    await shot(page, 'queues');

    await show(page, `#/job/${ns}/light`, 'job');
    await statIs(page, 'workers-now', '6');
    await page.waitForSelector('[data-testid="progress-chart"] canvas', { timeout: DOM_TIMEOUT });
    await page.waitForSelector('[data-testid="events"] [data-reason="Admitted"]', { timeout: DOM_TIMEOUT });
    const tfConfig = await page.textContent('[data-testid="tf-config"]');
    expect(tfConfig).toContain('"cluster"');
    await shot(page, 'job');
  });

  it('shows a scale-in on the job timeline: the Preempted decision and the worker count falling', async () => {
    await show(page, `#/job/${ns}/light`, 'job');
    await createTFJob(
      ns,
      onPool(
        elasticJob('heavy', {
          ps: { cpu: '1', memory: '1Gi' },
          worker: { cpu: '1', memory: '1Gi' },
          min: 2,
          max: 2,
          priorityClass: highClass,
        }),
        pool,
      ),
    );
    // Without reloading the page: the change stream brings it.
    await page.waitForSelector('[data-testid="events"] [data-reason="Preempted"]', { timeout: DOM_TIMEOUT });
    await statIs(page, 'workers-now', '4');
    // The ring kept the step down: samples at 6 workers, then at 4.
    const res = await page.evaluate(
      async (p) => (await fetch(p)).json() as Promise<{ samples: { workers: number }[] }>,
      `/api/job/${ns}/light`,
    );
    const workers = res.samples.map((s) => s.workers);
    expect(workers).toContain(6);
    expect(workers.at(-1)).toBe(4);
    await shot(page, 'job-after-scale-in');
  });

  it('does not break on a TFJob with odd or missing status', async () => {
    await show(page, `#/job/${other}/odd`, 'job');
    // A status with conditions and nothing of ours: its state, from the last true condition.
    await page.waitForSelector(`h2:text-is("TFJob ${other}/odd")`, { timeout: DOM_TIMEOUT });
    await statIs(page, 'state', 'Running');
    await noStrayValues(page);
    await show(page, `#/job/${other}/elsewhere`, 'job');
    await statIs(page, 'state', 'Unknown');
    await noStrayValues(page);
    await show(page, `#/job/${other}/no-such-job`, 'job');
    await page.waitForSelector('[data-testid="no-job"]', { timeout: DOM_TIMEOUT });
  });

  it('reconnects after the server drops the event stream, and goes on updating', async () => {
    await show(page, '#/jobs', 'jobs');
    expect(dashboard.server.streams).toBeGreaterThan(0);
    dashboard.server.dropStreams();
    await eventually(async () => dashboard.server.streams > 0, { what: 'the page reconnected its event stream', timeoutMs: DOM_TIMEOUT });
    await isLive(page);
    await createTFJob(other, elasticJob('after-reconnect', { worker: { cpu: '1' }, min: 1, max: 1 }));
    await page.waitForSelector(`[data-job="${other}/after-reconnect"]`, { timeout: DOM_TIMEOUT });
  });

  it('recovers from the server going away: the page says so, reconnects when it is back, and shows what changed meanwhile', async () => {
    await show(page, '#/jobs', 'jobs');
    await isLive(page);
    const port = Number(new URL(dashboard.url).port);
    await dashboard.server.close();
    await page.waitForSelector('#live[data-state="reconnecting"]', { timeout: DOM_TIMEOUT });
    await createTFJob(other, elasticJob('while-away', { worker: { cpu: '1' }, min: 1, max: 1 }));
    // The same server (its token, so the page's cookie) on the same port: a dashboard that came back.
    await dashboard.server.listen('127.0.0.1', port);
    await isLive(page);
    await page.waitForSelector(`[data-job="${other}/while-away"]`, { timeout: DOM_TIMEOUT });
  });

  it("shows a user limited to one namespace none of another namespace's jobs", async () => {
    const limited = await startDashboard({ kubeConfig: await namespaceReader(ns), logger, namespaces: [ns, other] });
    try {
      expect(limited.access['tfjobs']).toEqual({ scope: 'namespaces', namespaces: [ns] });
      const p = await browser.context.newPage();
      await p.goto(limited.url);
      await show(p, '#/jobs', 'jobs');
      await p.waitForSelector(`[data-job="${ns}/light"]`, { timeout: DOM_TIMEOUT });
      expect(await p.locator(`[data-job^="${other}/"]`).count()).toBe(0);
      // Not in what the server sends either, and the page says what it may not see.
      const body = JSON.stringify(await getJson(p, '/api/snapshot'));
      expect(body).not.toContain(`${other}/`);
      expect(body).not.toContain(`"namespace":"${other}"`);
      expect(await p.textContent('#notes')).toContain('nodes');
      await shot(p, 'jobs-limited-user');
      await show(p, `#/job/${other}/odd`, 'job');
      await p.waitForSelector('[data-testid="no-job"]', { timeout: DOM_TIMEOUT });
      await p.close();
    } finally {
      await limited.stop();
    }
  });
});
