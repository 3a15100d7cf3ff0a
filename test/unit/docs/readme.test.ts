// The README's configuration and metrics tables are generated from the code (hack/gen-config-docs.ts);
// this fails when an option or a metric changed without `node hack/gen-config-docs.ts`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { README_PATH, configTable, metricFamilies, renderReadme, replaceBlock } from '../../../hack/gen-config-docs.ts';
import { parseTFJob } from '../../../src/api/v1/parse.ts';
import { validateTFJob } from '../../../src/api/v1/validation.ts';
import { buildJobView } from '../../../src/reconciler/tfjob/index.ts';
import { applyDefaults } from '../../../src/api/v1/defaults.ts';
import { OPTIONS } from '../../../src/operator/config.ts';

describe('README generated tables', () => {
  it('are up to date (run `node hack/gen-config-docs.ts` if not)', async () => {
    const current = readFileSync(README_PATH, 'utf8');
    expect(await renderReadme(current)).toBe(current);
  });

  it('list every option and every metric family', async () => {
    const table = configTable();
    for (const o of OPTIONS) expect(table).toContain(`| \`--${o.flag}\` |`);
    const readme = readFileSync(README_PATH, 'utf8');
    const families = await metricFamilies();
    expect(families.length).toBeGreaterThan(25);
    for (const f of families) expect(readme).toContain(`| \`${f.name}\` | ${f.type} |`);
  });

  it('escape pipes inside cells and refuse to write without markers', () => {
    expect(configTable()).toContain('ours \\| kod2 \\| tf-operator');
    expect(() => replaceBlock('no markers here', 'configuration', 'x')).toThrow(/markers for "configuration" not found/);
    const text = 'a\n<!-- BEGIN GENERATED: t (hack/gen-config-docs.ts) -->\nold\n<!-- END GENERATED: t -->\nb';
    expect(replaceBlock(text, 't', 'new')).toBe(
      'a\n<!-- BEGIN GENERATED: t (hack/gen-config-docs.ts) -->\nnew\n<!-- END GENERATED: t -->\nb',
    );
  });

  it('has a sample TFJob that the operator accepts, elastic from 1 to 4 workers', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    const m = /kubectl apply -f - <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(readme);
    expect(m).not.toBeNull();
    const parsed = parseTFJob(parse(m![1]!));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(validateTFJob(parsed.job)).toEqual([]);
    expect(buildJobView(parsed.job, applyDefaults(parsed.job), {}).elastic).toEqual({ min: 1, max: 4 });
  });
});
