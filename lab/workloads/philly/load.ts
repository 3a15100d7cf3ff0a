// Reads one application's tables from a trace folder laid out as traces/philly/apps/<app>/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PhillyApp } from './app.ts';
import { buildPhillyApp } from './app.ts';

const VALIDATION_FILE = /^validation-([0-9]+)\.csv$/;

export function loadPhillyApp(appsDir: string, name: string, maxLocalBatch?: number): PhillyApp {
  const dir = join(appsDir, name);
  const validationCsv = new Map<number, string>();
  for (const file of readdirSync(dir)) {
    const match = VALIDATION_FILE.exec(file);
    if (match !== null) validationCsv.set(Number(match[1]), readFileSync(join(dir, file), 'utf8'));
  }
  return buildPhillyApp(
    name,
    {
      placementsCsv: readFileSync(join(dir, 'placements.csv'), 'utf8'),
      scalabilityCsv: readFileSync(join(dir, 'scalability.csv'), 'utf8'),
      validationCsv,
    },
    maxLocalBatch,
  );
}
