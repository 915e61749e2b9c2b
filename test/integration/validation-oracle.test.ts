// The validation differential (test/differential/README.md, "Validation
// against the kube-apiserver"): thousands of pod manifests, mutated field by
// field from valid ones (test/differential/validation/), judged by the real
// kube-apiserver (a dry-run create) and by knode's manifest decoder. Their
// verdicts must agree, a rejection naming the same fields, on every manifest
// but those a deliberate difference (known.ts) explains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../helpers/controlplane.js';
import { generateManifests } from '../differential/validation/generator.js';
import { KNOWN_VALIDATION } from '../differential/validation/known.js';
import { agree, ApiserverJudge, knodeVerdict, pool, sameWords } from '../differential/validation/oracle.js';

/** KNODE_ORACLE_SEED and KNODE_ORACLE_COUNT give another corpus; the default one is what CI runs. */
const SEED = Number(process.env.KNODE_ORACLE_SEED ?? 43);
const COUNT = Number(process.env.KNODE_ORACLE_COUNT ?? 3000);
const DEFAULT_CORPUS = process.env.KNODE_ORACLE_SEED === undefined && process.env.KNODE_ORACLE_COUNT === undefined;
const CONCURRENCY = 16;
/** KNODE_ORACLE_WORDING=1 lists the shared rejections worded otherwise (not asserted). */
const LIST_WORDING = process.env.KNODE_ORACLE_WORDING === '1';

describe('pod validation against the real kube-apiserver', () => {
  let cp: ControlPlane;

  beforeAll(() => {
    cp = startControlPlane();
  });
  afterAll(() => cp?.stop());

  it(`agrees on ${COUNT} generated manifests (seed ${SEED})`, { timeout: 150_000 }, async () => {
    const manifests = generateManifests(SEED, COUNT);
    expect(manifests.length).toBe(COUNT);
    const judge = new ApiserverJudge(cp.apiserver, cp.dir, CONCURRENCY);
    const theirs = await pool(manifests, CONCURRENCY, (m) => judge.judge(m.text)).finally(() => judge.close());
    const used = new Map<string, number>();
    const unexplained: string[] = [];
    let agreeing = 0;
    let [rejectedAlike, wordedAlike] = [0, 0];
    const wordedOtherwise: string[] = [];
    manifests.forEach((m, i) => {
      const [apiserver, knode] = [theirs[i], knodeVerdict(m.text)];
      if (agree(apiserver, knode)) {
        agreeing++;
        // Not asserted: how many of the rejections both agree on are worded alike too.
        if (apiserver.reason === 'invalid') {
          rejectedAlike++;
          if (sameWords(apiserver, knode)) wordedAlike++;
          else wordedOtherwise.push(`${m.name}\n    apiserver: ${apiserver.causes.join(' | ')}\n    knode: ${knode.causes.join(' | ')}`);
        }
        return;
      }
      const known = KNOWN_VALIDATION.find((k) => k.explains(apiserver, knode, JSON.parse(m.text) as Record<string, unknown>));
      if (known) return void used.set(known.id, (used.get(known.id) ?? 0) + 1);
      const said = (v: typeof apiserver) => (v.accepted ? 'accepted' : `${v.reason} ${JSON.stringify(v.fields)}`);
      unexplained.push(
        `${m.name}\n    apiserver: ${said(apiserver)} ${apiserver.message.slice(0, 300)}\n    knode: ${said(knode)} ${knode.message.slice(0, 300)}`,
      );
    });
    const accepted = theirs.filter((v) => v.accepted).length;
    const percent = ((100 * agreeing) / manifests.length).toFixed(1);
    console.log(
      `validation differential: ${agreeing} of ${manifests.length} agree (${percent} %); the apiserver accepted ${accepted}; ` +
        `${manifests.length - agreeing - unexplained.length} differ as known (${
          [...used]
            .sort()
            .map(([id, n]) => `${id} ${n}`)
            .join(', ') || 'none'
        }), ` +
        `${unexplained.length} unexplained; ${wordedAlike} of the ${rejectedAlike} invalid ones both refuse worded alike`,
    );
    if (LIST_WORDING) console.log(`worded otherwise:\n${wordedOtherwise.join('\n')}`);
    expect(unexplained, `disagreements no known difference explains:\n${unexplained.slice(0, 40).join('\n')}`).toEqual([]);
    // The apiserver's own view of the corpus: both verdicts occur, in numbers.
    expect(accepted).toBeGreaterThan(COUNT / 20);
    expect(accepted).toBeLessThan(COUNT - COUNT / 20);
    if (DEFAULT_CORPUS)
      expect(
        KNOWN_VALIDATION.map((k) => k.id).filter((id) => !used.has(id)),
        'known differences that explain nothing',
      ).toEqual([]);
  });
});
