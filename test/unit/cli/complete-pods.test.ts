// Where a pod name goes on a knode command line, the names offered there,
// and the shell hooks that ask for them.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { podCandidates, podPlace, type FlagSpecs } from '../../../src/cli/complete-pods.js';
import { completionHook } from '../../../src/cli/completion-hooks.js';

const base: FlagSpecs = {
  'root-dir': { type: 'option' },
  'runtime-endpoint': { type: 'option' },
  verbose: { type: 'boolean' },
};
const flags: Record<string, FlagSpecs> = {
  exec: {
    ...base,
    container: { type: 'option', char: 'c' },
    stdin: { type: 'boolean', char: 'i' },
    tty: { type: 'boolean', char: 't' },
    namespace: { type: 'option', char: 'n' },
  },
  logs: { ...base, container: { type: 'option', char: 'c' }, follow: { type: 'boolean', char: 'f' } },
  'describe:deploy': { ...base, namespace: { type: 'option', char: 'n' } },
  'describe:jobs': { ...base, namespace: { type: 'option', char: 'n' } },
  'describe:cj': { ...base, namespace: { type: 'option', char: 'n' } },
  describe: { ...base, namespace: { type: 'option', char: 'n' } },
  delete: { ...base, namespace: { type: 'option', char: 'n' }, filename: { type: 'option', char: 'f' }, now: { type: 'boolean' } },
  cp: { ...base, container: { type: 'option', char: 'c' }, namespace: { type: 'option', char: 'n' } },
  'describe:pod': { ...base, namespace: { type: 'option', char: 'n' } },
  'port-forward': { ...base, address: { type: 'option' }, namespace: { type: 'option', char: 'n' } },
  attach: { ...base },
  status: { ...base, namespace: { type: 'option', char: 'n' }, output: { type: 'option', char: 'o' } },
  'rollout:status': { ...base, namespace: { type: 'option', char: 'n' }, timeout: { type: 'option' } },
  'rollout:history': { ...base, namespace: { type: 'option', char: 'n' }, revision: { type: 'option' } },
  'rollout:restart': { ...base, namespace: { type: 'option', char: 'n' } },
  scale: { ...base, namespace: { type: 'option', char: 'n' }, replicas: { type: 'option' } },
  apply: { ...base, filename: { type: 'option', char: 'f' } },
};
const place = (...words: string[]) => podPlace(words, (id) => flags[id]);

describe('podPlace', () => {
  it("finds the pod's argument of each command, past flags and their values", () => {
    expect(place('exec', '')).toMatchObject({ command: 'exec', prefix: '', colon: false });
    expect(place('exec', '-it', '-c', 'app', 'we')).toMatchObject({ prefix: 'we' });
    expect(place('attach', '--root-dir', '/r', '')).toMatchObject({ rootDir: '/r' });
    expect(place('logs', '-f', '--root-dir=/r', 'w')).toMatchObject({ command: 'logs', rootDir: '/r', prefix: 'w' });
    expect(place('describe', 'pod', '-n', 'kube-system', '')).toMatchObject({ command: 'describe:pod', namespace: 'kube-system' });
    expect(place('port-forward', '--address', '0.0.0.0', '--runtime-endpoint', 'unix:///c.sock', '')).toMatchObject({
      runtimeEndpoint: 'unix:///c.sock',
    });
    expect(place('exec', '-in', 'other', '')).toMatchObject({ namespace: 'other' });
    expect(place('cp', './local', 'w')).toMatchObject({ command: 'cp', colon: true, prefix: 'w' });
    expect(place('cp', '-n', 'x', '')).toMatchObject({ colon: true, namespace: 'x' });
  });

  it("takes kubectl's TYPE/NAME where logs, exec, attach and port-forward take a pod, and describe's kinds", () => {
    for (const command of ['logs', 'exec', 'attach', 'port-forward']) expect(place(command, '')).toMatchObject({ types: true });
    expect(place('cp', '')).toMatchObject({ types: false });
    expect(place('describe', 'pod', '')).toMatchObject({ command: 'describe:pod', types: false });
    expect(place('describe', 'pod', '')).not.toHaveProperty('kind');
    expect(place('describe', 'deploy', '-n', 'shop', 'w')).toMatchObject({
      command: 'describe:deploy',
      kind: 'Deployment',
      namespace: 'shop',
      prefix: 'w',
      types: false,
    });
    expect(place('describe', 'jobs', '')).toMatchObject({ kind: 'Job' });
    expect(place('describe', 'cj', '')).toMatchObject({ kind: 'CronJob' });
    expect(place('describe', 'deployments.apps', '')).toBeUndefined(); // no such command
    expect(place('describe', 'deploy', 'web', '')).toBeUndefined();
  });

  it("finds -c's value after the pod, as a container of that pod", () => {
    expect(place('exec', 'web', '-c', '')).toMatchObject({ command: 'exec', containerOf: 'web', prefix: '' });
    expect(place('logs', '-f', 'other/db', '--container', 's')).toMatchObject({ containerOf: 'other/db', prefix: 's' });
    expect(place('exec', '-n', 'other', 'db', '-it', '-c', '')).toMatchObject({ containerOf: 'db', namespace: 'other' });
    expect(place('exec', '-c', '')).toBeUndefined(); // no pod yet
    expect(place('cp', 'web:/x', '-c', '')).toBeUndefined(); // cp's hook offers files there
    expect(place('exec', 'web', '-c', 'app', '')).toBeUndefined();
  });

  it('is nowhere else: a later argument, a flag or its value, after --, another command', () => {
    for (const words of [
      ['exec', 'web', ''],
      ['exec', '-c', ''],
      ['exec', '--namespace', ''],
      ['exec', '--', ''],
      ['exec', '-'],
      ['exec', '--con'],
      ['cp', 'a', 'b', ''],
      ['logs', '-n', 'other', ''], // logs has no -n: "other" is its pod
      ['describe', ''],
      ['describe', 'node', ''],
      ['apply', '-f', ''],
      ['run', ''],
      ['exec'],
      [],
    ])
      expect(place(...words), words.join(' ')).toBeUndefined();
  });
});

describe('podCandidates', () => {
  const pods = [
    { namespace: 'default', name: 'web-e2e' },
    { namespace: 'default', name: 'worker-e2e' },
    { namespace: 'other', name: 'db-e2e' },
    { namespace: 'default', name: 'web-e2e' },
  ];
  it("offers default's pods by name, the others as NAMESPACE/NAME, once each, sorted, those that fit what is typed", () => {
    expect(podCandidates({ pods, objects: [] }, place('describe', 'pod', '')!)).toEqual(['other/db-e2e', 'web-e2e', 'worker-e2e']);
    expect(podCandidates({ pods, objects: [] }, place('exec', 'we')!)).toEqual(['web-e2e']);
    expect(podCandidates({ pods, objects: [] }, place('describe', 'pod', '-n', 'other', '')!)).toEqual(['db-e2e']);
    expect(podCandidates({ pods, objects: [] }, place('describe', 'pod', '-n', 'none', '')!)).toEqual([]);
  });

  it("offers the named pod's containers, init containers first, for -c", () => {
    const withContainers = [
      { namespace: 'default', name: 'web', containers: ['setup', 'app', 'sidecar'] },
      { namespace: 'other', name: 'web', containers: ['db'] },
    ];
    expect(podCandidates({ pods: withContainers, objects: [] }, place('exec', 'web', '-c', '')!)).toEqual(['setup', 'app', 'sidecar']);
    expect(podCandidates({ pods: withContainers, objects: [] }, place('exec', 'web', '-c', 's')!)).toEqual(['setup', 'sidecar']);
    expect(podCandidates({ pods: withContainers, objects: [] }, place('exec', 'other/web', '-c', '')!)).toEqual(['db']);
    expect(podCandidates({ pods: withContainers, objects: [] }, place('exec', '-n', 'other', 'web', '-c', '')!)).toEqual(['db']);
    expect(podCandidates({ pods: withContainers, objects: [] }, place('exec', 'gone', '-c', '')!)).toEqual([]);
  });

  const workloads = [
    { kind: 'Deployment', namespace: 'default', name: 'web', containers: ['migrate', 'app'] },
    { kind: 'Deployment', namespace: 'shop', name: 'api', containers: ['api'] },
    { kind: 'Job', namespace: 'default', name: 'pi', containers: ['pi'] },
    { kind: 'StatefulSet', namespace: 'default', name: 'db', containers: ['db'] },
    { kind: 'CronJob', namespace: 'default', name: 'backup', containers: ['dump'] },
  ];
  const from = { pods, objects: workloads };

  it("offers kubectl's TYPE/ words beside the pods where TYPE/NAME goes, then that type's names in the namespace", () => {
    expect(podCandidates(from, place('logs', '')!)).toEqual([
      'daemonsets/',
      'deployments/',
      'jobs/',
      'other/db-e2e',
      'pods/',
      'replicasets/',
      'statefulsets/',
      'web-e2e',
      'worker-e2e',
    ]);
    expect(podCandidates(from, place('exec', 'd')!)).toEqual(['daemonsets/', 'deployments/']);
    expect(podCandidates(from, place('exec', 'deployments/')!)).toEqual(['deployments/web']);
    expect(podCandidates(from, place('logs', 'deploy/w')!)).toEqual(['deploy/web']);
    expect(podCandidates(from, place('exec', '-n', 'shop', 'deploy/')!)).toEqual(['deploy/api']);
    expect(podCandidates(from, place('attach', 'sts/')!)).toEqual(['sts/db']);
    expect(podCandidates(from, place('exec', 'pod/w')!)).toEqual(['pod/web-e2e', 'pod/worker-e2e']);
    expect(podCandidates(from, place('exec', 'other/')!)).toEqual(['other/db-e2e']); // a namespace, as the commands read it
    expect(podCandidates(from, place('cp', '')!)).toEqual(['other/db-e2e:', 'web-e2e:', 'worker-e2e:']);
  });

  it("offers delete's names of the type given, as many as wanted, and TYPE/NAME's; nothing after -f", () => {
    const withConfig = { pods, objects: [...workloads, { kind: 'ConfigMap', namespace: 'default', name: 'web-config' }] };
    expect(podCandidates(withConfig, place('delete', 'pod', '')!)).toEqual(['other/db-e2e', 'web-e2e', 'worker-e2e']);
    expect(podCandidates(withConfig, place('delete', 'pod', 'web-e2e', '--now', 'w')!)).toEqual(['web-e2e', 'worker-e2e']);
    expect(podCandidates(withConfig, place('delete', 'deploy', '-n', 'shop', '')!)).toEqual(['api']);
    expect(podCandidates(withConfig, place('delete', 'cm', '')!)).toEqual(['web-config']);
    expect(podCandidates(withConfig, place('delete', 'configmaps/w')!)).toEqual(['configmaps/web-config']);
    expect(podCandidates(withConfig, place('delete', 'deploy/web', 'cj/')!)).toEqual(['cj/backup']);
    expect(place('delete', '-f', '')).toBeUndefined();
    expect(place('delete', '')).toBeUndefined();
  });

  it("offers get's pods and TYPE/ first, then its type's names, and rollout's objects of the kinds that roll out", () => {
    const withConfig = { pods, objects: [...workloads, { kind: 'ConfigMap', namespace: 'default', name: 'web-config' }] };
    for (const command of ['get', 'status']) {
      expect(podCandidates(withConfig, place(command, 'w')!)).toEqual(['web-e2e', 'worker-e2e']);
      expect(podCandidates(withConfig, place(command, 'dep')!)).toEqual(['deployments/']);
      expect(podCandidates(withConfig, place(command, 'cm', '-o', 'yaml', '')!)).toEqual(['web-config']);
      expect(podCandidates(withConfig, place(command, 'deploy', 'web', '')!)).toEqual(['shop/api', 'web']);
      expect(podCandidates(withConfig, place(command, 'deploy/web', 'configmaps/')!)).toEqual(['configmaps/web-config']);
    }
    expect(podCandidates(from, place('rollout', 'status', 'deploy', '-n', 'shop', '')!)).toEqual(['api']);
    expect(podCandidates(from, place('rollout', 'history', 'sts', '')!)).toEqual(['db']);
    expect(podCandidates(from, place('rollout', 'restart', 'sts', '')!)).toEqual(['db']);
    expect(podCandidates(from, place('scale', '--replicas', '3', 'deploy', '-n', 'shop', '')!)).toEqual(['api']);
    expect(podCandidates(from, place('rollout', 'status', 'deployments/')!)).toEqual(['deployments/web']);
    expect(place('rollout', 'status', 'job', '')).toBeUndefined(); // a Job does not roll out
    expect(place('rollout', '')).toBeUndefined(); // oclif completes the subcommands
  });

  it("offers describe KIND's objects of that kind, and a workload's template containers for -c", () => {
    expect(podCandidates(from, place('describe', 'deploy', '')!)).toEqual(['shop/api', 'web']);
    expect(podCandidates(from, place('describe', 'deploy', '-n', 'shop', '')!)).toEqual(['api']);
    expect(podCandidates(from, place('describe', 'jobs', 'p')!)).toEqual(['pi']);
    expect(podCandidates(from, place('describe', 'cj', '')!)).toEqual(['backup']);
    // kubectl's describe TYPE/NAME.
    expect(podCandidates(from, place('describe', 'deploy/')!)).toEqual(['deploy/web']);
    expect(podCandidates(from, place('describe', '-n', 'shop', 'deployments/a')!)).toEqual(['deployments/api']);
    expect(place('describe', 'deploy')).toBeUndefined(); // oclif completes the subcommands
    expect(podCandidates(from, place('describe', 'pod', 'w')!)).toEqual(['web-e2e', 'worker-e2e']);
    expect(podCandidates(from, place('exec', 'deploy/web', '-c', '')!)).toEqual(['migrate', 'app']);
    expect(podCandidates(from, place('logs', 'jobs/pi', '-c', '')!)).toEqual(['pi']);
    expect(podCandidates(from, place('logs', 'jobs/none', '-c', '')!)).toEqual([]);
  });

  it("offers cp's POD: until a colon is typed", () => {
    expect(podCandidates({ pods, objects: [] }, place('cp', 'w')!)).toEqual(['web-e2e:', 'worker-e2e:']);
    expect(podCandidates({ pods, objects: [] }, place('cp', 'web-e2e:/t')!)).toEqual([]);
  });
});

describe('completionHook', () => {
  it('is valid bash, and bash and zsh ask knode for the commands that take a pod, and hands the rest to oclif', () => {
    const bash = completionHook('bash', 'knode');
    expect(bash).toContain('attach|cp|delete|describe|exec|get|logs|port-forward|rollout|scale|status)');
    expect(bash).toContain('knode __complete pods -- ');
    expect(bash).toContain('  _knode_autocomplete\n');
    expect(bash).toContain('complete -o default -F _knode_pods_complete knode');
    execFileSync('bash', ['-n'], { input: bash });
    const zsh = completionHook('zsh', 'knode');
    expect(zsh).toContain('  _knode "$@"\n');
    expect(zsh).toContain('compdef _knode_pods_complete knode');
    expect(completionHook('powershell', 'knode')).toBe('');
  });

  it('has no % or backslash: `knode autocomplete` has it added to ~/.bashrc through printf', () => {
    for (const shell of ['bash', 'zsh']) expect(completionHook(shell, 'knode')).not.toMatch(/[%\\]/);
  });

  it("completes in bash from what knode prints, and hands to oclif's function when knode exits 1", () => {
    const run = (line: string, answer: string) =>
      execFileSync('bash', ['--norc', '-c', `${completionHook('bash', 'knode')}\n${probe(line)}`], {
        encoding: 'utf8',
        env: { PATH: `${fakeKnode(answer)}:/usr/bin:/bin` },
      });
    expect(run('knode exec w', 'web-e2e\nworker-e2e')).toBe('web-e2e|worker-e2e|\n');
    expect(run('knode ex', 'FALLBACK')).toBe('oclif|\n');
  });
});

/** A knode on PATH that prints ANSWER (exit 0), or exits 1 for FALLBACK, as `__complete pods` does. */
function fakeKnode(answer: string): string {
  const dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
  const body = answer === 'FALLBACK' ? 'exit 1' : `printf '${answer.replaceAll('\n', '\\n')}\\n'`;
  execFileSync('sh', ['-c', `printf '#!/bin/sh\\n%s\\n' "$1" > "$2/knode" && chmod +x "$2/knode"`, 'sh', body, dir]);
  return dir;
}

/** Calls the hook as bash's completion would for LINE, with oclif's function stubbed, and prints COMPREPLY. */
function probe(line: string): string {
  return [
    `_knode_autocomplete() { COMPREPLY=(oclif); }`,
    `COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))`,
    `_knode_pods_complete 2>/dev/null; printf '%s|' "\${COMPREPLY[@]}"; echo`,
  ].join('\n');
}
