// The simulate command's CPU-model and vertical-rule flags (docs/simulation-results.md §9). Without
// --vertical-policy the simulator does not model CPU at all: every figure is as without this code.
import type { CpuModelOptions } from './options.ts';
import { FLOWCON_CPU, VERTICAL_ARMS, type FlowConCpu, type VerticalArm } from './options.ts';
import type { StudyName, StudyOptions } from './study.ts';
import { DEFAULT_SPECON_STUDY, type SpeconStudyOptions } from './specon-study.ts';

export const VERTICAL_CLI_OPTIONS = {
  'vertical-policy': { type: 'string' },
  'vertical-interval': { type: 'string', default: '20' },
  'vertical-study': { type: 'string' },
  'flowcon-alpha': { type: 'string', default: '0.05' },
  'flowcon-cpu': { type: 'string', default: 'allowed' },
  'cpu-demand': { type: 'string', default: '1' },
  'ps-cpu-demand': { type: 'string', default: '1' },
  'cpu-limit': { type: 'string' },
  'restart-seconds': { type: 'string' },
  'specon-seeds': { type: 'string' },
  'specon-jobs': { type: 'string' },
  'specon-gap': { type: 'string' },
} as const;

export const VERTICAL_CLI_USAGE = [
  '  --vertical-policy <p>   model CPU limits and contention on each node and run a vertical rule:',
  `                          ${VERTICAL_ARMS.filter((a) => a !== 'specon').join(' | ')} (default: CPU not modelled)`,
  "  --vertical-interval S   the rule's first interval in simulated seconds (default: 20)",
  "  --flowcon-alpha X       FlowCon's α (default: 0.05)",
  "  --flowcon-cpu <c>       FlowCon's CPU term: allowed (limits × time, the operator's) | used (default: allowed)",
  '  --cpu-demand X          a worker would use X × its CPU request unconstrained (default: 1)',
  '  --ps-cpu-demand X       the same for a PS (default: 1)',
  "  --cpu-limit X           template CPU limit = X × the request (default: the node's allocatable CPU)",
  "  --vertical-study <s>    flowcon | flowcon-b | dqoes: the papers' one-node experiment under each arm;",
  '                          specon: elastic jobs arriving on two nodes, none vs flowcon vs specon (§9.5)',
  '                          (no --scenario; honours --vertical-interval, --flowcon-alpha, --flowcon-cpu, --cpu-limit)',
  '  --restart-seconds S     specon study: seconds a moved worker does no work (default: 30)',
  '  --specon-seeds N        specon study: drawn mixes of seeds 1..N instead of the six-job mix, one line each',
  '  --specon-jobs N         jobs per drawn mix (default: 12)',
  '  --specon-gap S          mean seconds between their arrivals (default: 240)',
];

export class VerticalOptionError extends Error {}

function positive(name: string, value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x <= 0)
    throw new VerticalOptionError(`--${name} must be a positive number; got "${value}"`);
  return x;
}

function alpha(value: string): number {
  const x = positive('flowcon-alpha', value);
  if (x >= 1) throw new VerticalOptionError(`--flowcon-alpha must be below 1; got "${value}"`);
  return x;
}

function flowconCpu(value: string): FlowConCpu {
  if (!FLOWCON_CPU.includes(value as FlowConCpu))
    throw new VerticalOptionError(`--flowcon-cpu must be one of ${FLOWCON_CPU.join(', ')}; got "${value}"`);
  return value as FlowConCpu;
}

/** SpeCon needs elastic asynchronous jobs on several nodes: it is modelled in its study (--vertical-study specon) only. */
const SCENARIO_ARMS: readonly VerticalArm[] = VERTICAL_ARMS.filter((a) => a !== 'specon');

type Values = { readonly [K in keyof typeof VERTICAL_CLI_OPTIONS]?: string };

/** The CPU model of a scenario run; undefined without --vertical-policy. */
export function cpuModelFrom(values: Values): CpuModelOptions | undefined {
  const arm = values['vertical-policy'];
  if (arm === undefined) return undefined;
  if (arm === 'specon') throw new VerticalOptionError('--vertical-policy specon is modelled in its study only: --vertical-study specon');
  if (!SCENARIO_ARMS.includes(arm as VerticalArm))
    throw new VerticalOptionError(`--vertical-policy must be one of ${SCENARIO_ARMS.join(', ')}; got "${arm}"`);
  const limit = values['cpu-limit'];
  return {
    arm: arm as VerticalArm,
    intervalSeconds: positive('vertical-interval', values['vertical-interval'] ?? '20'),
    workerDemandFactor: positive('cpu-demand', values['cpu-demand'] ?? '1'),
    psDemandFactor: positive('ps-cpu-demand', values['ps-cpu-demand'] ?? '1'),
    ...(limit === undefined ? {} : { limitFactor: positive('cpu-limit', limit) }),
    flowcon: { alpha: alpha(values['flowcon-alpha'] ?? '0.05') },
    flowconCpu: flowconCpu(values['flowcon-cpu'] ?? 'allowed'),
  };
}

function count(name: string, value: string): number {
  const x = positive(name, value);
  if (!Number.isInteger(x)) throw new VerticalOptionError(`--${name} must be a whole number; got "${value}"`);
  return x;
}

function nonNegative(name: string, value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0) throw new VerticalOptionError(`--${name} must be a number ≥ 0; got "${value}"`);
  return x;
}

const SPECON_FLAGS = ['restart-seconds', 'specon-seeds', 'specon-jobs', 'specon-gap'] as const;

function speconFrom(values: Values): SpeconStudyOptions {
  const seeds = values['specon-seeds'];
  const d = DEFAULT_SPECON_STUDY;
  return {
    restartSeconds: nonNegative('restart-seconds', values['restart-seconds'] ?? String(d.restartSeconds)),
    jobs: count('specon-jobs', values['specon-jobs'] ?? String(d.jobs)),
    gapSeconds: positive('specon-gap', values['specon-gap'] ?? String(d.gapSeconds)),
    ...(seeds === undefined ? {} : { seeds: count('specon-seeds', seeds) }),
  };
}

/** The study to run, or undefined without --vertical-study. */
export function studyFrom(values: Values): StudyOptions | undefined {
  const study = values['vertical-study'];
  if (study === undefined) return undefined;
  if (study !== 'flowcon' && study !== 'flowcon-b' && study !== 'dqoes' && study !== 'specon') {
    throw new VerticalOptionError(`--vertical-study must be flowcon, flowcon-b, dqoes or specon; got "${study}"`);
  }
  const stray = SPECON_FLAGS.find((f) => values[f] !== undefined);
  if (study !== 'specon' && stray !== undefined) throw new VerticalOptionError(`--${stray} is for --vertical-study specon only`);
  const limit = values['cpu-limit'];
  return {
    ...(limit === undefined ? {} : { limitFactor: positive('cpu-limit', limit) }),
    study: study satisfies StudyName,
    intervalSeconds: positive('vertical-interval', values['vertical-interval'] ?? '20'),
    alpha: alpha(values['flowcon-alpha'] ?? '0.05'),
    flowconCpu: flowconCpu(values['flowcon-cpu'] ?? 'allowed'),
    ...(study === 'specon' ? { specon: speconFrom(values) } : {}),
  };
}
