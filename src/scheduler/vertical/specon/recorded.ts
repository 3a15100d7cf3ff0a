// SpeCon's memory of its moves outlives the operator: each job's status records when its last move
// started (status.migration.last.time), so a restarted operator merges those times into the state it
// starts from and keeps every cooldown instead of moving the same job again at once. Pure.
import type { SpeconState } from './types.ts';

/** A move a job's status records: its key and when the move started (ms since the epoch). */
export interface RecordedMove {
  readonly job: string;
  readonly at: number;
}

/** The state with each recorded move merged in; per job the later time wins (a newer move in memory stays). */
export function withRecordedMoves(state: SpeconState, moves: Iterable<RecordedMove>): SpeconState {
  const lastMovedAt = new Map(state.lastMovedAt);
  for (const { job, at } of moves)
    if (Number.isFinite(at) && at > (lastMovedAt.get(job) ?? Number.NEGATIVE_INFINITY)) lastMovedAt.set(job, at);
  return { ...state, lastMovedAt };
}
