// The real node's cache keeps the image builds and references the tree uses and removes the rest of
// those images' families: an old TensorFlow version, an old build, a leftover root file system.
import { describe, expect, it } from 'vitest';
import { staleImageFiles, staleImageReferences } from '../../../../lab/local-cluster/real-node/cache-prune.ts';

const K = (c: string) => c.repeat(12);

describe('staleImageFiles', () => {
  const inUse = [`/cache/images/pause-${K('a')}.tar`, `/cache/images/tensorflow-2.21.0-${K('b')}.tar`];

  it('removes other versions and builds of an image family built this run, with their refs and leftovers', () => {
    const files = [
      `pause-${K('a')}.tar`,
      `pause-${K('a')}.tar.ref`,
      `tensorflow-2.21.0-${K('b')}.tar`,
      `tensorflow-2.21.0-${K('b')}.tar.ref`,
      `tensorflow-2.20.0-${K('c')}.tar`,
      `tensorflow-2.20.0-${K('c')}.tar.ref`,
      `tensorflow-2.21.0-${K('d')}.rootfs`,
      `pause-${K('e')}.tar`,
    ];
    expect(staleImageFiles(files, inUse)).toEqual([
      `tensorflow-2.20.0-${K('c')}.tar`,
      `tensorflow-2.20.0-${K('c')}.tar.ref`,
      `tensorflow-2.21.0-${K('d')}.rootfs`,
      `pause-${K('e')}.tar`,
    ]);
  });

  it('keeps the builds of versions the tree uses but this run did not build, and families it did not build', () => {
    const files = [
      `tensorflow-2.15.1-${K('f')}.tar`,
      `tensorflow-2.15.1-${K('f')}.tar.ref`,
      `debian-python-${K('1')}.tar`,
      `tfjob-operator-${K('2')}.tar`,
      `busybox-${K('3')}.tar`,
      'notes.txt',
    ];
    expect(staleImageFiles(files, inUse, ['tensorflow-2.21.0', 'tensorflow-2.15.1'])).toEqual([]);
    // Without it, 2.15.1 is just another version of the family.
    expect(staleImageFiles(files, inUse)).toEqual([`tensorflow-2.15.1-${K('f')}.tar`, `tensorflow-2.15.1-${K('f')}.tar.ref`]);
  });
});

describe('staleImageReferences', () => {
  it("removes other tags of the repositories in use only, never another repository's images", () => {
    const present = [
      'docker.io/local/tensorflow-cpu:2.21.0',
      'docker.io/local/tensorflow-cpu:2.20.0',
      'docker.io/local/tensorflow-cpu:2.15.1',
      'docker.io/local/pause:3.10',
      'docker.io/local/tfjob-operator:0.1.0-abc',
      'registry.example.com:5000/team/model:1',
      'sha256:0123',
      '',
    ];
    const inUse = ['docker.io/local/tensorflow-cpu:2.21.0', 'docker.io/local/tensorflow-cpu:2.15.1', 'docker.io/local/pause:3.10'];
    expect(staleImageReferences(present, inUse)).toEqual(['docker.io/local/tensorflow-cpu:2.20.0']);
    expect(staleImageReferences(present, ['docker.io/local/tfjob-operator:0.1.0-def'])).toEqual([
      'docker.io/local/tfjob-operator:0.1.0-abc',
    ]);
  });
});
