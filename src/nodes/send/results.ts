export interface SendOutcome {
  JobId?: number | string | undefined;
  CreateStatus?: string | undefined;
  ParseStatus?: string | undefined;
  queued: boolean;
  /** The older service's result string ("OK 123"). */
  raw?: string | undefined;
  /** SendMobileOrFixlineSMS: one entry per recipient. */
  results?: { JobId?: number | string; CreateStatus?: string; queued: boolean }[];
}

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function one(r: Rec): SendOutcome {
  if (typeof r.raw === 'string') {
    // The older service: { raw, ok, id, error, queued }.
    return { JobId: r.id as string | undefined, raw: r.raw, queued: !!r.queued };
  }
  const out: SendOutcome = { queued: !!r.queued };
  if (r.JobId !== undefined) out.JobId = r.JobId as number;
  if (r.Status !== undefined) out.CreateStatus = String(r.Status);
  if (r.ParseStatus !== undefined) out.ParseStatus = String(r.ParseStatus);
  return out;
}

/**
 * The client's send results in one shape for msg.payload whatever the operation. SendMobileOrFixlineSMS
 * returns one envelope per job the service created (mobile and fixed-line numbers go as separate jobs).
 */
export function sendOutcome(result: unknown): SendOutcome {
  if (Array.isArray(result)) {
    const results = result.filter(isRec).map((r) => {
      const o = one(r);
      return {
        ...(o.JobId !== undefined ? { JobId: o.JobId } : {}),
        ...(o.CreateStatus !== undefined ? { CreateStatus: o.CreateStatus } : {}),
        queued: o.queued,
      };
    });
    const first = results[0];
    return {
      JobId: first?.JobId,
      CreateStatus: results.find((r) => r.CreateStatus !== 'Ok')?.CreateStatus ?? first?.CreateStatus,
      queued: results.some((r) => r.queued),
      results,
    };
  }
  return isRec(result) ? one(result) : { queued: false };
}
