/**
 * Per operation: where the reference goes (the Caption parameter), how a job is found again by it
 * (QueryJobInfoByJobCaption, QueryJobs for the two-job SendMobileOrFixlineSMS, GetJobs1 on the older service),
 * how a DuplicateSMSJobFound answer names the existing job, and what a send found that way resolves with.
 */
import type { OperationDef, ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import { captionHasReference } from './reference';

/** Calls an operation and resolves with its raw decoded result (as `client.call` does). */
export type RawCall = (
  service: ServiceName,
  operation: string,
  params: Record<string, unknown>,
) => Promise<unknown>;

export interface LookupTarget {
  op: OperationDef;
  /** The caption as sent (with the reference). */
  caption: string;
  reference: string;
  /** Date.now() of the first attempt: the job cannot be older (minus clock skew). */
  since: number;
  /** Record separator passed to GetJobs1 (default newline). */
  legacySeparator?: string | undefined;
}

const DAY_MS = 86_400_000;

const captionParams = new WeakMap<OperationDef, string | null>();

/** The name of the parameter that carries the caption, when the operation has one (looked up once per operation). */
export function captionParamOf(op: OperationDef): string | undefined {
  let name = captionParams.get(op);
  if (name === undefined) {
    name = op.params.find((p) => !p.credential && p.name.toLowerCase() === 'caption')?.name ?? null;
    captionParams.set(op, name);
  }
  return name ?? undefined;
}

const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function loginRefused(operation: string, status: unknown): GatewayError {
  const s = typeof status === 'string' ? status : 'None';
  return new GatewayError('AUTH', `login refused: ${s}`, { operation, status: s, ambiguous: false });
}

/** Waiting for credits (JobStatus ZuWenigKontingent) is what `queued: true` means on a send. */
const queuedStatus = (status: unknown): boolean => status === 'ZuWenigKontingent';

/** What the typed method resolves with for jobs found by their reference. */
export function recoveredValue(op: OperationDef, jobs: Array<{ id: number; queued: boolean }>): unknown {
  if (op.service === 'legacy') {
    const id = jobs[0]?.id ?? 0;
    return { raw: `OK ${id}`, ok: true, id: String(id), queued: false, recovered: true };
  }
  const one = (j: { id: number; queued: boolean }): Record<string, unknown> =>
    op.name === 'SendUDH'
      ? { ParseStatus: 'Ok', JobId: j.id, queued: j.queued, recovered: true }
      : {
          Status: j.queued ? 'JobIsQueuedInsufficientCredits' : 'Ok',
          JobId: j.id,
          queued: j.queued,
          recovered: true,
        };
  return op.result.type.kind === 'list' ? jobs.map(one) : one(jobs[0] ?? { id: 0, queued: false });
}

/**
 * Tolerant of cleaning only: ';', line breaks (and the older service's record separator) replaced, spaces
 * trimmed, letters re-cased. Never of a longer or shorter caption.
 */
function cleanedCaption(s: string, separator: string | undefined): string {
  const text = separator && separator.trim() !== '' ? s.split(separator).join(' ') : s;
  return text
    .replace(/[;\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * True when the gateway's caption is the caption as sent (exactly, or as a gateway cleans it). Whatever the
 * gateway's Caption filter matches (the whole caption, or every caption that starts with it), only the job
 * whose caption is ours counts.
 */
export function sameCaption(reported: unknown, sent: string, reference: string, separator?: string): boolean {
  if (typeof reported !== 'string') return false;
  if (reported === sent) return true;
  return (
    captionHasReference(reported, reference) &&
    cleanedCaption(reported, separator) === cleanedCaption(sent, separator)
  );
}

/** Finds the job(s) of a send by its reference; undefined when there is none; rejects when it cannot tell. */
export async function lookupJob(call: RawCall, t: LookupTarget): Promise<unknown> {
  if (t.op.service === 'legacy') return lookupLegacy(call, t);
  if (t.op.result.type.kind === 'list') return lookupByQueryJobs(call, t);
  // The exact caption as sent: a gateway that matches whole captions finds it, one that matches prefixes too.
  const raw = record(await call('information', 'QueryJobInfoByJobCaption', { Caption: t.caption }));
  if (raw.StatusCode !== 'Ok') throw loginRefused('QueryJobInfoByJobCaption', raw.StatusCode);
  const value = record(raw.Value);
  const job = record(value.Job);
  if (value.Status !== 'Ok') return undefined;
  const id = Number(job.Id);
  if (sameCaption(job.Caption, t.caption, t.reference) && Number.isInteger(id) && id > 0)
    return recoveredValue(t.op, [{ id, queued: queuedStatus(job.Status) }]);
  // It answered with another job (its filter matched more than our caption: the newest job starting with it,
  // say): ours may still exist behind it, so "not found" would risk a second send. Ask QueryJobs instead.
  const jobs = await jobsWithCaption(call, t);
  return jobs.length ? recoveredValue(t.op, jobs.slice(0, 1)) : undefined;
}

/** SendMobileOrFixlineSMS may create two jobs with the same caption: QueryJobs finds all of them. */
async function lookupByQueryJobs(call: RawCall, t: LookupTarget): Promise<unknown> {
  const jobs = await jobsWithCaption(call, t);
  return jobs.length ? recoveredValue(t.op, jobs) : undefined;
}

/** The jobs created around the first attempt whose caption is the caption as sent, oldest first. */
async function jobsWithCaption(
  call: RawCall,
  t: LookupTarget,
): Promise<Array<{ id: number; queued: boolean }>> {
  const raw = record(
    await call('information', 'QueryJobs', {
      StartDate: new Date(t.since - DAY_MS),
      EndDate: new Date(Date.now() + DAY_MS),
    }),
  );
  if (raw.StatusCode !== 'Ok') throw loginRefused('QueryJobs', raw.StatusCode);
  const list = Array.isArray(raw.Value) ? raw.Value.map(record) : [];
  return list
    .filter((j) => sameCaption(j.Caption, t.caption, t.reference))
    .map((j) => ({ id: Number(j.Id), queued: queuedStatus(j.Status) }))
    .filter((j) => Number.isInteger(j.id) && j.id > 0)
    .sort((a, b) => a.id - b.id);
}

async function lookupLegacy(call: RawCall, t: LookupTarget): Promise<unknown> {
  const raw = record(
    await call('legacy', 'GetJobs1', {
      // Whole days around the first attempt: the service's zone is not known.
      StartDate: isoDay(t.since - DAY_MS),
      EndDate: isoDay(Date.now() + DAY_MS),
      Trennzeichen: t.legacySeparator ?? '\n',
      JobId: '',
    }),
  );
  if (raw.ok !== true) {
    const text = typeof raw.error === 'string' ? raw.error : String(raw.raw ?? '');
    throw new GatewayError('REJECTED', `refused: ${text}`, { operation: 'GetJobs1', status: text });
  }
  const records = Array.isArray(raw.records) ? raw.records.map(record) : [];
  const separator = t.legacySeparator ?? '\n';
  const hit = records.find((r) => sameCaption(r.caption, t.caption, t.reference, separator));
  const id = Number(hit?.jobId);
  return hit && Number.isInteger(id) && id > 0 ? recoveredValue(t.op, [{ id, queued: false }]) : undefined;
}

/**
 * A DuplicateSMSJobFound answer: the job it names (0/absent when the gateway does not say). Undefined for
 * every other answer.
 */
export function duplicateOf(
  op: OperationDef,
  raw: unknown,
): { jobId: number | undefined; status: string } | undefined {
  if (op.service === 'legacy') {
    const r = record(raw);
    if (r.ok !== false || typeof r.error !== 'string' || !/duplicate/i.test(r.error)) return undefined;
    const m = /(\d+)\s*$/.exec(r.error);
    return { jobId: m ? Number(m[1]) : undefined, status: r.error };
  }
  const envelopes = Array.isArray(raw) ? raw.map(record) : [record(raw)];
  for (const env of envelopes) {
    const value = record(env.Value);
    if (env.StatusCode === 'Ok' && value.Status === 'DuplicateSMSJobFound') {
      const id = Number(value.JobId);
      return { jobId: Number.isInteger(id) && id > 0 ? id : undefined, status: 'DuplicateSMSJobFound' };
    }
  }
  return undefined;
}
