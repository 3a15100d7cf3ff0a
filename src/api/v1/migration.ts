// `status.migration.last`: the move SpeCon recorded last. Read one way by everything that must survive
// an operator restart (the steering, the restored worker target, the migration step).
import type { MigrationStatus } from './schema.ts';

export type MigrationRecord = NonNullable<MigrationStatus['last']>;

/** The job's last move while its status says Moving (the old worker deleted, its replacement not yet bound). */
export function moveUnderWay(status: { readonly migration?: MigrationStatus | undefined } | undefined): MigrationRecord | undefined {
  const last = status?.migration?.last;
  return last?.state === 'Moving' ? last : undefined;
}
