// `simulate --vertical-study flowcon|dqoes`: runs the study (study.ts) with the real scheduling core's
// `ours` policy and prints its tables as Markdown.
import type { SchedulePass } from '../engine.ts';
import { movesLines, seedsTable, SPECON_CPU, versusFlowconLine } from './specon-study.ts';
import { roundsLine, completionTable, qoeTable, runStudy, STUDY_CPU, type StudyOptions } from './study.ts';

async function oursPass(): Promise<SchedulePass> {
  const core = await import('../core.ts');
  return core.corePass('ours');
}

export async function runStudyCli(options: StudyOptions, passFor?: (policy: 'ours') => SchedulePass): Promise<number> {
  const schedule = passFor === undefined ? await oursPass() : passFor('ours');
  if (options.study === 'specon') return runSpeconCli(options, schedule);
  const runs = runStudy(options, schedule);
  console.log(
    `vertical study ${options.study}: interval ${options.intervalSeconds} s, α ${options.alpha}, ` +
      `FlowCon CPU ${options.flowconCpu ?? 'allowed'}, ` +
      `worker demand ${STUDY_CPU.workerDemandFactor} × request, template limit ` +
      `${options.limitFactor === undefined ? "the node's CPU" : `${options.limitFactor} × request`}\n`,
  );
  console.log(completionTable(runs));
  if (options.study === 'dqoes') console.log(`\n${qoeTable(runs)}`);
  console.log(`\n${roundsLine(runs)}`);
  return 0;
}

function runSpeconCli(options: StudyOptions, schedule: SchedulePass): number {
  const specon = options.specon;
  console.log(
    `vertical study specon: interval ${options.intervalSeconds} s, α ${options.alpha}, FlowCon CPU ${options.flowconCpu ?? 'allowed'}, ` +
      `worker demand ${SPECON_CPU.workerDemandFactor} × request (workers add up), template limit ` +
      `${options.limitFactor === undefined ? "the node's CPU" : `${options.limitFactor} × request`}, restart ${specon?.restartSeconds ?? 30} s` +
      `${specon?.seeds === undefined ? '' : `, ${specon.jobs} jobs a mean ${specon.gapSeconds} s apart`}\n`,
  );
  if (specon?.seeds !== undefined) {
    const rows = Array.from({ length: specon.seeds }, (_, i) => ({ seed: i + 1, runs: runStudy(options, schedule, i + 1) }));
    console.log(seedsTable(rows));
    return 0;
  }
  const runs = runStudy(options, schedule);
  console.log(completionTable(runs));
  console.log(`\n${versusFlowconLine(runs)}\n${roundsLine(runs)}\n${movesLines(runs).join('\n')}`);
  return 0;
}
