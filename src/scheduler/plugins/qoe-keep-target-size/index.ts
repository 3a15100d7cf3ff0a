// The `qoe-keep-target-size` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { keepTargetSize } from './keep-target-size.ts';

export const qoeKeepTargetSizePlugin: Plugin = {
  name: 'qoe-keep-target-size',
  register(points) {
    points.keeps.push(keepTargetSize);
  },
};
