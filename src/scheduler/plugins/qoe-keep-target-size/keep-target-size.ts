// The keep rule of `qoe-keep-target-size` (qoe-protect.ts says which floor and against whom).
import type { KeepRule } from '../../session/session.ts';
import { targetFloor } from './qoe-protect.ts';

/** `qoeKeepTargetSize`: a victim keeps the workers its reachable target needs (qoe-protect.ts). */
export const keepTargetSize: KeepRule = (session, head) => (victim, workers) => workers <= targetFloor(victim, head, session.now);
