// The real node's cache keeps the image builds and references the tree uses and removes the rest of
// those images' families: an old TensorFlow version, an old build, a leftover root file system.
import { describe, expect, it } from 'vitest';
import { parseImageList, staleImageFiles, staleImageReferences } from '../../../../lab/local-cluster/real-node/cache-prune.ts';

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

/** An image-ID reference and a manifest digest: both `sha256:` and 64 hex digits. */
const id = (c: string) => `sha256:${c.repeat(64)}`;
const d = id;

describe('staleImageReferences', () => {
  it("removes other tags of the repositories in use only, never another repository's images", () => {
    const present = [
      { reference: 'docker.io/local/tensorflow-cpu:2.21.0', digest: d('1') },
      { reference: 'docker.io/local/tensorflow-cpu:2.20.0', digest: d('2') },
      { reference: 'docker.io/local/tensorflow-cpu:2.15.1', digest: d('3') },
      { reference: 'docker.io/local/pause:3.10', digest: d('4') },
      { reference: 'docker.io/local/tfjob-operator:0.1.0-abc', digest: d('5') },
      { reference: 'registry.example.com:5000/team/model:1', digest: d('6') },
    ];
    const inUse = ['docker.io/local/tensorflow-cpu:2.21.0', 'docker.io/local/tensorflow-cpu:2.15.1', 'docker.io/local/pause:3.10'];
    expect(staleImageReferences(present, inUse)).toEqual(['docker.io/local/tensorflow-cpu:2.20.0']);
    expect(staleImageReferences(present, ['docker.io/local/tfjob-operator:0.1.0-def'])).toEqual([
      'docker.io/local/tfjob-operator:0.1.0-abc',
    ]);
  });

  it('removes the image-ID references of replaced builds and of removed tags, keeps those of names that stay', () => {
    const present = [
      { reference: 'docker.io/local/tensorflow-cpu:2.21.0', digest: d('1') },
      { reference: id('a'), digest: d('1') },
      // An earlier build of the same tag: its name now points at the new build, its ID stays behind.
      { reference: id('b'), digest: d('9') },
      { reference: 'docker.io/local/tensorflow-cpu:2.20.0', digest: d('2') },
      { reference: id('c'), digest: d('2') },
      { reference: 'registry.example.com/other:1', digest: d('6') },
      { reference: id('e'), digest: d('6') },
    ];
    expect(staleImageReferences(present, ['docker.io/local/tensorflow-cpu:2.21.0'])).toEqual([
      'docker.io/local/tensorflow-cpu:2.20.0',
      id('b'),
      id('c'),
    ]);
  });
});

describe('parseImageList', () => {
  it('reads the reference and the target digest of each line of ctr images ls', () => {
    const out =
      'REF                                   TYPE                                                 DIGEST                                                                  SIZE    PLATFORMS   LABELS\n' +
      `docker.io/local/pause:3.10            application/vnd.oci.image.manifest.v1+json          ${d('4')} 4.0 KiB linux/amd64 io.cri-containerd.image=managed\n` +
      `${id('a')} application/vnd.oci.image.manifest.v1+json ${d('4')} 4.0 KiB linux/amd64 io.cri-containerd.image=managed\n`;
    expect(parseImageList(out)).toEqual([
      { reference: 'docker.io/local/pause:3.10', digest: d('4') },
      { reference: id('a'), digest: d('4') },
    ]);
  });
});
