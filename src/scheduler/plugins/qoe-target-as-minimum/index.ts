// The `qoe-target-as-minimum` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { raisedMinimaThatNeverFit } from './qoe-minimum-fit.ts';
import type { RankingRefinement } from '../../session/session.ts';

/** A waiting job whose raised minimum would never fit keeps its declared one: the pass is built again. */
const keepDeclaredWhereTooLarge: RankingRefinement = (model, ranking) => {
  const tooLarge = raisedMinimaThatNeverFit(model);
  return tooLarge.length === 0 ? undefined : { ...ranking, declaredMinimumFor: new Set(tooLarge) };
};

export const qoeTargetAsMinimumPlugin: Plugin = {
  name: 'qoe-target-as-minimum',
  register(points) {
    points.ranking.targetMinimum = true;
    points.refineRanking.push(keepDeclaredWhereTooLarge);
  },
};
