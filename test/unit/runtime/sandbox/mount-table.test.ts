import { describe, expect, it } from 'vitest';
import { mountTable, readonlySysTable, type MountTable } from '../../../../src/runtime/sandbox/mount-table.js';
import { mountOf, mountsUnder, parseMountinfo } from '../../../../src/util/mountinfo.js';

const base: MountTable = {
  rootfs: '/r/c1/rootfs',
  root: '/r/c1/root',
  dev: '/r/c1/dev',
  kit: '/r/kit',
  kitPath: '/.knode',
  mounts: [],
  privileged: false,
  sysSubmounts: ['/sys/fs/cgroup', '/sys/fs/cgroup/memory'],
  readonlyPaths: [],
  masked: [],
  readonlyRootfs: false,
};

const lines = (t: MountTable) => mountTable(t).trimEnd().split('\n');

describe('mountTable', () => {
  it("mounts the root, /proc, /dev with its devices, a read-only /sys and the kit, in runc's order", () => {
    expect(lines(base)).toEqual([
      '/r/c1/rootfs /r/c1/root none rbind,rslave 0 0',
      'proc /r/c1/root/proc proc nosuid,nodev,noexec 0 0',
      '/r/c1/dev /r/c1/root/dev none bind 0 0',
      ...['null', 'zero', 'full', 'random', 'urandom', 'tty'].map((d) => `/dev/${d} /r/c1/root/dev/${d} none bind 0 0`),
      'devpts /r/c1/root/dev/pts devpts newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec 0 0',
      'shm /r/c1/root/dev/shm tmpfs nosuid,nodev,noexec,mode=1777,size=65536k 0 0',
      '/sys /r/c1/root/sys none rbind,ro 0 0',
      '/r/c1/root/sys/fs/cgroup /r/c1/root/sys/fs/cgroup none remount,bind,ro 0 0',
      '/r/c1/root/sys/fs/cgroup/memory /r/c1/root/sys/fs/cgroup/memory none remount,bind,ro 0 0',
      '/r/kit /r/c1/root/.knode none bind,ro 0 0',
    ]);
  });

  it.each<[string, Partial<MountTable>, string[]]>([
    ['a privileged container: /sys writable, with what is under it', { privileged: true }, ['/sys /r/c1/root/sys none rbind 0 0']],
    [
      "each volume's propagation: private by default, a slave of the host's, or shared with it",
      {
        mounts: [
          { hostPath: '/v/a', containerPath: '/a', readonly: false },
          { hostPath: '/v/b', containerPath: '/b', readonly: true, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
          { hostPath: '/v/c', containerPath: '/c', readonly: false, propagation: 'PROPAGATION_BIDIRECTIONAL' },
        ],
      },
      [
        '/v/a /r/c1/root/a none rbind,rprivate 0 0',
        '/v/b /r/c1/root/b none rbind,ro,rslave 0 0',
        '/v/c /r/c1/root/c none rbind,rshared 0 0',
      ],
    ],
    [
      'a recursive read-only volume: what the host mounts under it is made read-only too',
      { mounts: [{ hostPath: '/v/d', containerPath: '/d', readonly: true, readonlySubmounts: ['/v/d/tmpfs'] }] },
      ['/v/d /r/c1/root/d none rbind,ro,rprivate 0 0', '/r/c1/root/d/tmpfs /r/c1/root/d/tmpfs none remount,bind,ro 0 0'],
    ],
    [
      'read-only and masked paths after the volumes, and a read-only root last',
      {
        readonlyPaths: ['/proc/sys'],
        masked: [
          { containerPath: '/proc/kcore', directory: false },
          { containerPath: '/proc/acpi', directory: true },
        ],
        readonlyRootfs: true,
      },
      [
        '/r/c1/root/proc/sys /r/c1/root/proc/sys none rbind,ro 0 0',
        '/dev/null /r/c1/root/proc/kcore none bind 0 0',
        'tmpfs /r/c1/root/proc/acpi tmpfs ro,nosuid,nodev,noexec 0 0',
        '/r/c1/root /r/c1/root none remount,bind,ro 0 0',
      ],
    ],
    [
      'its overlay mounted at the new root in place of a bind of its root file system, first',
      { overlay: { lower: '/r/images/abc', upper: '/r/c1/upper', work: '/r/c1/work' } },
      [
        'overlay /r/c1/root overlay lowerdir=/r/images/abc,upperdir=/r/c1/upper,workdir=/r/c1/work 0 0',
        'proc /r/c1/root/proc proc nosuid,nodev,noexec 0 0',
      ],
    ],
    [
      'blanks and backslashes written as octal escapes',
      { mounts: [{ hostPath: '/v/my dir\\x', containerPath: '/with\ttab', readonly: false }] },
      ['/v/my\\040dir\\134x /r/c1/root/with\\011tab none rbind,rprivate 0 0'],
    ],
  ])('%s', (_name, changes, wanted) => {
    const all = lines({ ...base, ...changes });
    expect(all).toEqual(expect.arrayContaining(wanted));
    expect(all.some((line) => line.startsWith('/r/c1/rootfs '))).toBe(changes.overlay === undefined);
    // In the order given.
    const at = wanted.map((line) => all.indexOf(line));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});

const MOUNTINFO = [
  '22 27 0:21 / /proc rw,relatime - proc proc rw',
  '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '40 27 0:40 / /mnt/data rw shared:7 master:3 - tmpfs tmpfs rw',
  '41 40 0:41 / /mnt/data/with\\040space rw master:9 - tmpfs tmpfs rw',
  'not a line',
].join('\n');

describe('the read-only copy of /sys', () => {
  const sysLines = (t: MountTable) => lines(t).filter((line) => line.includes('/sys'));

  it("is bound as the container's /sys when the runtime has one, with nothing remounted; a privileged container still gets the host's, writable", () => {
    expect(sysLines({ ...base, readonlySys: '/run/k/sys' })).toEqual(['/run/k/sys /r/c1/root/sys none rbind 0 0']);
    expect(sysLines({ ...base, readonlySys: '/run/k/sys', privileged: true })).toEqual(['/sys /r/c1/root/sys none rbind 0 0']);
  });

  it("is made by a table that binds the host's /sys privately and remounts each mount under it read-only, escaping blanks", () => {
    expect(readonlySysTable('/run/my k/sys', ['/sys/fs/cgroup', '/sys/fs/cgroup/memory']).trimEnd().split('\n')).toEqual([
      '/sys /run/my\\040k/sys none rbind,ro,rprivate 0 0',
      '/run/my\\040k/sys/fs/cgroup /run/my\\040k/sys/fs/cgroup none remount,bind,ro 0 0',
      '/run/my\\040k/sys/fs/cgroup/memory /run/my\\040k/sys/fs/cgroup/memory none remount,bind,ro 0 0',
    ]);
  });
});

describe('mountinfo', () => {
  const table = parseMountinfo(MOUNTINFO);

  it('reads mount points and peer groups, undoing the octal escapes', () => {
    expect(table).toEqual([
      { mountPoint: '/proc' },
      { mountPoint: '/', shared: 1 },
      { mountPoint: '/mnt/data', shared: 7, master: 3 },
      { mountPoint: '/mnt/data/with space', master: 9 },
    ]);
  });

  it('finds the mount a path is on, and the mounts under a directory', () => {
    expect(mountOf(table, '/mnt/data/x/y')?.mountPoint).toBe('/mnt/data');
    expect(mountOf(table, '/mnt/database')?.mountPoint).toBe('/');
    expect(mountOf(table, '/mnt/data/with space/z')?.mountPoint).toBe('/mnt/data/with space');
    expect(mountsUnder(table, '/mnt')).toEqual(['/mnt/data', '/mnt/data/with space']);
    expect(mountsUnder(table, '/mnt/data')).toEqual(['/mnt/data/with space']);
  });
});
