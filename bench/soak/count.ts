/**
 * The soak's counting: what the gateway (the emulator's state) made and holds, beside what the flow emitted (the
 * ledger). Lost = made or collected at the gateway but never out of the flow; duplicated = out of the flow more
 * than once, or made at the gateway more than once.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { GatewayState } from '../../src/emulator';
import type { AccountState } from '../../src/emulator/state/model';

export interface GatewayFacts {
  sends: number;
  hlrSends: number;
  /** Ids of the inbound messages the driver injected, in order. */
  inboundInjected: number[];
  queries: number;
  bursts: number;
  restarts: number;
}

export interface Counts {
  sends: {
    requested: number;
    made: number;
    madeTwice: number;
    notMade: number;
    accepted: number;
    acceptedTwice: number;
    restored: number;
    errors: Record<string, number>;
  };
  tracking: { final: number; timeouts: number; falseTimeouts: number; duplicated: number; waiting: number };
  dlr: { expected: number; emitted: number; duplicated: number; missing: number };
  inbound: {
    injected: number;
    collected: number;
    emitted: number;
    lost: number;
    duplicated: number;
    notCollected: number;
  };
  hlr: { results: number; emitted: number; lost: number; duplicated: number; sendErrors: number };
  queries: { ok: number; errors: Record<string, number> };
  triggerErrors: Record<string, number>;
  /** Every send answered and tracked to its end, every inbound message and HLR result out of the flow. */
  settled: boolean;
  /** 0 lost, 0 duplicated, 0 false timeouts. */
  clean: boolean;
}

type Ledger = Map<string, Map<string, string[]>>;

function readLedger(file: string): Ledger {
  const byKind: Ledger = new Map();
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [kind = '', key = '', ...rest] = line.split(' ');
    let m = byKind.get(kind);
    if (!m) byKind.set(kind, (m = new Map()));
    const list = m.get(key) ?? [];
    list.push(rest.join(' '));
    m.set(key, list);
  }
  return byKind;
}

const tally = (
  m: Map<string, string[]> | undefined,
  pick: (details: string, key: string) => string,
): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [key, list] of m ?? []) for (const d of list) out[pick(d, key)] = (out[pick(d, key)] ?? 0) + 1;
  return out;
};

export function countAll(state: GatewayState, ledgerFile: string, facts: GatewayFacts): Counts {
  const l = readLedger(ledgerFile);
  const kind = (k: string): Map<string, string[]> => l.get(k) ?? new Map<string, string[]>();
  // The emulator's own records (a bench may read them; the package never does).
  const accounts = [
    ...(state as unknown as { store: { accounts: Map<string, AccountState> } }).store.accounts.values(),
  ];

  const jobsOf = new Map<number, number[]>();
  const soakJobIds = new Set<number>();
  for (const job of state.jobs()) {
    const m = /^soak-(\d+) #/.exec(job.caption);
    if (!m) continue;
    const n = Number(m[1]);
    jobsOf.set(n, [...(jobsOf.get(n) ?? []), job.id]);
    soakJobIds.add(job.id);
  }
  const S = kind('S');
  const E = kind('E');
  const D = kind('D');
  const T = kind('T');
  let made = 0;
  let madeTwice = 0;
  let notMade = 0;
  let accepted = 0;
  let acceptedTwice = 0;
  let restored = 0;
  let final = 0;
  let timeouts = 0;
  let falseTimeouts = 0;
  let trackDup = 0;
  let waiting = 0;
  let unanswered = 0;
  const finalStatuses = new Set(['Erledigt', 'Fehler']);
  const statusOf = new Map(state.jobs().map((j) => [j.id, j.status]));
  for (let n = 0; n < facts.sends; n++) {
    const key = String(n);
    const jobs = jobsOf.get(n) ?? [];
    if (jobs.length === 0) notMade++;
    else made++;
    if (jobs.length > 1) madeTwice++;
    const s = S.get(key) ?? [];
    if (s.length > 0) accepted++;
    if (s.length > 1) acceptedTwice++;
    restored += s.filter((d) => d.includes('restored')).length;
    if (s.length === 0 && !E.has(key)) unanswered++;
    const d = D.get(key)?.length ?? 0;
    const t = T.get(key)?.length ?? 0;
    final += Math.min(d, 1);
    timeouts += Math.min(t, 1);
    if (d + t > 1) trackDup++;
    if (t > 0 && jobs.some((id) => finalStatuses.has(statusOf.get(id) ?? ''))) falseTimeouts++;
    if (jobs.length > 0 && s.length > 0 && d + t === 0) waiting++;
  }

  const expectedReports = new Set<string>();
  for (const a of accounts)
    for (const r of a.reports)
      if (soakJobIds.has(r.jobId)) expectedReports.add(`${r.jobId}/${r.recipient}/${r.status}`);
  const R = kind('R');
  let dlrDup = 0;
  let dlrMissing = 0;
  for (const [key, list] of R) if (list.length > 1 && expectedReports.has(key)) dlrDup++;
  for (const key of expectedReports) if (!R.has(key)) dlrMissing++;

  const I = kind('I');
  const inbound = accounts.flatMap((a) => a.inbound);
  const injected = new Set(facts.inboundInjected);
  let collected = 0;
  let lost = 0;
  let inDup = 0;
  let notCollected = 0;
  for (const r of inbound) {
    if (!injected.has(r.id)) continue;
    const emitted = I.get(String(r.id))?.length ?? 0;
    if (r.collected) collected++;
    else notCollected++;
    if (r.collected && emitted === 0) lost++;
    if (emitted > 1) inDup++;
  }

  const H = kind('H');
  const hlr = accounts.flatMap((a) => a.hlr);
  let hlrLost = 0;
  let hlrDup = 0;
  for (const r of hlr) {
    const emitted = H.get(String(r.id))?.length ?? 0;
    if (emitted === 0) hlrLost++;
    if (emitted > 1) hlrDup++;
  }

  const counts: Counts = {
    sends: {
      requested: facts.sends,
      made,
      madeTwice,
      notMade,
      accepted,
      acceptedTwice,
      restored,
      errors: tally(E, (d) => d.split(' ')[0] ?? '?'),
    },
    tracking: { final, timeouts, falseTimeouts, duplicated: trackDup, waiting },
    dlr: { expected: expectedReports.size, emitted: R.size, duplicated: dlrDup, missing: dlrMissing },
    inbound: { injected: injected.size, collected, emitted: I.size, lost, duplicated: inDup, notCollected },
    hlr: {
      results: hlr.length,
      emitted: H.size,
      lost: hlrLost,
      duplicated: hlrDup,
      sendErrors: kind('HE').size,
    },
    queries: {
      ok: [...kind('Q').values()].reduce((a, v) => a + v.length, 0),
      errors: tally(kind('QE'), (_d, k) => k),
    },
    triggerErrors: tally(kind('PE'), (d, k) => `${k} ${d.split(' ')[0] ?? ''}`),
    settled: false,
    clean: false,
  };
  counts.settled =
    unanswered === 0 &&
    waiting === 0 &&
    notCollected === 0 &&
    lost === 0 &&
    hlrLost === 0 &&
    dlrMissing === 0;
  counts.clean =
    notMade === 0 &&
    madeTwice === 0 &&
    acceptedTwice === 0 &&
    falseTimeouts === 0 &&
    trackDup === 0 &&
    dlrDup === 0 &&
    dlrMissing === 0 &&
    lost === 0 &&
    inDup === 0 &&
    hlrLost === 0 &&
    hlrDup === 0;
  return counts;
}
