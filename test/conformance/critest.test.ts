// critest, the CRI conformance suite of cri-tools (test/peers/build.sh critest),
// against the embedded runtime with bubblewrap sandboxes, offline
// (test/peers/critest.sh seeds a local registry with stand-ins for its images).
// Every spec critest runs must pass, except those below, each with the reason it
// cannot here; one of them that passes fails this test too, so that the list
// stays true. UNSTABLE specs may go either way (each says what was seen).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../peers/critest.sh');

const NOT_IMPLEMENTED = 'not implemented by the embedded runtime';
const STAND_IN = "critest's image is stood in for by busybox-static here";

/** Specs that do not pass, by their text after "[It] ", with why. */
const EXPECTED_FAILURES: Record<string, string> = {
  // Networking: containers are on the host's network (no pod network, no port mapping).
  'runtime should support port mapping with host port and container port [Conformance]': 'no pod network: a hostPort cannot map to another containerPort',
  'should support safe sysctls': `pod sysctls: ${NOT_IMPLEMENTED}`,
  'should support unsafe sysctls': `pod sysctls: ${NOT_IMPLEMENTED}`,
  // Security context features bubblewrap sandboxes do not give.
  'runtime should support Privileged is true': `privileged containers: ${NOT_IMPLEMENTED}`,
  'runtime should support adding capability': `capabilities: ${NOT_IMPLEMENTED}`,
  'runtime should support dropping capability': `capabilities: ${NOT_IMPLEMENTED}`,
  'runtime should support dropping ALL capabilities': `capabilities: ${NOT_IMPLEMENTED}`,
  'runtime should support MaskedPaths': `maskedPaths (not in knode's CRI subset): ${NOT_IMPLEMENTED}`,
  'runtime should support ReadonlyPaths': `readonlyPaths (not in knode's CRI subset): ${NOT_IMPLEMENTED}`,
  'should support seccomp localhost profile on the container': `seccomp: ${NOT_IMPLEMENTED}`,
  'should support seccomp default on the container': `seccomp: ${NOT_IMPLEMENTED}`,
  "mount with 'rshared' should support propagation from host to container and vice versa": `mount propagation: ${NOT_IMPLEMENTED}`,
  "mount with 'rslave' should support propagation from host to container": `mount propagation: ${NOT_IMPLEMENTED}`,
  'should support non-recursive readonly mounts': 'bubblewrap makes read-only binds recursively',
  // The images.
  'public image with digest should be pulled and removed [Conformance]': "its digest is upstream's manifest's, which cannot be made offline",
  'should not allow privilege escalation when true': `nonewprivs (a setuid program): ${STAND_IN}`,
  'should allow privilege escalation when false': `nonewprivs (a setuid program): ${STAND_IN}`,
  'runtime should support execSync with timeout [Conformance]': `pgrep: ${STAND_IN}, which has no pgrep`,
  'runtime should support HostIpc is true': `ipcs: ${STAND_IN}, which has no ipcs`,
  'runtime should support HostIpc is false': `ipcs: ${STAND_IN}, which has no ipcs`,
  'runtime should support HostPID': `nginx: ${STAND_IN} (httpd), and the test looks for a process named nginx`,
  'runtime should support ContainerPID': `nginx: ${STAND_IN} (httpd), and the test looks for "nginx: master process"`,
};

/**
 * Specs seen both passing and failing. In full runs (never in runs of these
 * specs alone) the container was sometimes no longer running when critest
 * exec'd into it after seeing it RUNNING: not understood yet.
 */
const UNSTABLE: Record<string, string> = {
  'runtime should support set hostname [Conformance]': 'container found not running at the exec, in full runs only',
  // Fails as expected (no seccomp), but passes when the exec meets the same not-running container.
  'runtime should support an seccomp profile that blocks setting hostname with SYS_ADMIN': `seccomp: ${NOT_IMPLEMENTED}; passes when the container is found not running`,
};

interface SpecReport {
  LeafNodeType: string;
  LeafNodeText: string;
  ContainerHierarchyTexts: string[] | null;
  State: string;
  Failure?: { Message: string };
}

function runCritest(dir: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT, dir], { encoding: 'utf8', timeout: 20 * 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stderr });
    });
  });
}

/** KNODE_TEST_CONFORMANCE=off skips it (a machine without the peers). */
const off = process.env.KNODE_TEST_CONFORMANCE === 'off';

describe.skipIf(off)('critest against the embedded runtime with sandboxes', () => {
  let dir: string;
  let specs: SpecReport[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-critest-'));
    const run = await runCritest(join(dir, 'run'));
    let report: { SpecReports: SpecReport[] }[];
    try {
      report = JSON.parse(readFileSync(join(dir, 'run', 'report.json'), 'utf8'));
    } catch {
      throw new Error(`critest wrote no report (exit ${run.code}): ${run.stderr.slice(-2000)}`);
    }
    specs = report.flatMap((suite) => suite.SpecReports ?? []).filter((s) => s.LeafNodeType === 'It');
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the suite', () => {
    const ran = specs.filter((s) => s.State !== 'skipped');
    expect(ran.length).toBeGreaterThanOrEqual(90);
  });

  it('passes every spec but the expected failures, and fails each of those', () => {
    const name = (s: SpecReport) => s.LeafNodeText;
    const failed = specs.filter((s) => s.State !== 'passed' && s.State !== 'skipped' && !(name(s) in UNSTABLE));
    const unexpected = failed.filter((s) => !(name(s) in EXPECTED_FAILURES)).map((s) => `${[...(s.ContainerHierarchyTexts ?? []), name(s)].join(' ')}: ${s.Failure?.Message.slice(0, 300)}`);
    expect(unexpected).toEqual([]);
    const nowPassing = specs.filter((s) => s.State === 'passed' && name(s) in EXPECTED_FAILURES).map(name);
    expect(nowPassing, 'expected to fail, but passed: take them off EXPECTED_FAILURES').toEqual([]);
  });
});
