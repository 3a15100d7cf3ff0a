// `simulate --vertical-study flowcon|dqoes`: runs the study (study.ts) with the real scheduling core's
// `ours` policy and prints its tables as Markdown.
import type { SchedulePass } from '../engine.ts';
import { roundsLine, completionTable, qoeTable, runStudy, STUDY_CPU, type StudyOptions } from './study.ts';

async function oursPass(): Promise<SchedulePass> {
  const core = await import('../core.ts');
  return core.corePass('ours');
}

export async function runStudyCli(options: StudyOptions, passFor?: (policy: 'ours') => SchedulePass): Promise<number> {
  const schedule = passFor === undefined ? await oursPass() : passFor('ours');
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
