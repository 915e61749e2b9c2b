import type { RuntimeService } from '../cri/runtime-service.js';
import { NetworkReady, RuntimeReady, type RuntimeCondition } from '../cri/types.js';
import type { EventStream } from './events.js';

/**
 * The kubelet's runtime state check: whether the container runtime answers
 * and says it is ready (RuntimeReady, NetworkReady), the conditions a
 * runtime adds of its own (the embedded runtime's ContainerSandboxReady), and
 * the PLEG's health check (a relist finished within its threshold). Each
 * change is said once, as an event.
 */
export class RuntimeHealth {
  private problem: string | undefined;
  private recursiveReadOnly = false;
  private plegProblem: string | undefined;
  /** The runtime's conditions besides RuntimeReady and NetworkReady, by type. */
  private readonly others = new Map<string, RuntimeCondition>();

  constructor(
    private readonly runtime: Pick<RuntimeService, 'status'>,
    private readonly events: EventStream,
    private readonly pleg: () => { ok: boolean; message: string } = () => ({ ok: true, message: '' }),
  ) {}

  /** Why the runtime cannot be used, or undefined while it can. */
  get error(): string | undefined {
    return this.problem;
  }

  /** Whether the runtime's default handler said (at the last check) that it makes recursive read-only mounts. */
  supportsRecursiveReadOnly(): boolean {
    return this.recursiveReadOnly;
  }

  /** The runtime's conditions of its own, as the Node shows them. */
  conditions(): RuntimeCondition[] {
    return [...this.others.values()];
  }

  /** Asks the runtime for its status (every runtimeStatusPeriod). */
  async check(): Promise<void> {
    let problem: string | undefined;
    try {
      const answer = await this.runtime.status();
      const conditions = answer.status?.conditions ?? [];
      this.recursiveReadOnly = answer.runtimeHandlers?.find((h) => h.name === '')?.features?.recursiveReadOnlyMounts === true;
      const required = (c: RuntimeCondition) => c.type === RuntimeReady || c.type === NetworkReady;
      const notReady = conditions.filter((c) => required(c) && !c.status);
      this.noteOthers(conditions.filter((c) => !required(c)));
      if (notReady.length > 0) problem = notReady.map((c) => `${c.type}=false reason:${c.reason} message:${c.message}`).join('; ');
    } catch (err) {
      problem = `the runtime does not answer: ${(err as Error).message}`;
    }
    if (problem && !this.problem) this.events.emit({ type: 'RuntimeUnhealthy', pod: '', uid: '', message: problem });
    if (!problem && this.problem)
      this.events.emit({ type: 'RuntimeHealthy', pod: '', uid: '', message: 'the container runtime is ready again' });
    this.problem = problem;
    this.checkPleg();
  }

  private checkPleg(): void {
    const pleg = this.pleg();
    const problem = pleg.ok ? undefined : `PLEG is not healthy: ${pleg.message}`;
    if (problem && !this.plegProblem) this.events.emit({ type: 'PLEGUnhealthy', pod: '', uid: '', message: problem });
    if (!problem && this.plegProblem) this.events.emit({ type: 'PLEGHealthy', pod: '', uid: '', message: 'the PLEG relists again' });
    this.plegProblem = problem;
  }

  /** Says when a condition of the runtime's own changes, and when it is first seen false. */
  private noteOthers(conditions: RuntimeCondition[]): void {
    for (const c of conditions) {
      const before = this.others.get(c.type);
      this.others.set(c.type, { type: c.type, status: c.status, reason: c.reason, message: c.message });
      if (before ? before.status === c.status : c.status) continue;
      this.events.emit({
        type: 'RuntimeConditionChanged',
        pod: '',
        uid: '',
        reason: c.reason || c.type,
        message: `${c.type}=${c.status}: ${c.message}`,
      });
    }
  }
}
