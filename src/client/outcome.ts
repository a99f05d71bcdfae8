/**
 * Turns a decoded result into what a typed method resolves with, or into a GatewayError for the statuses
 * the catalogue's `statusCheck` names (the generic call() returns results unchanged).
 */
import type { OperationDef } from '../catalogue/types';
import type { Catalogue } from '../catalogue/catalogue';
import { GatewayError } from '../errors';

function valueIsList(op: OperationDef, catalogue: Catalogue): boolean {
  const t = op.result.type;
  if (t.kind !== 'complex') return false;
  return catalogue.complexTypes[t.name]?.fields.find((f) => f.name === 'Value')?.type.kind === 'list';
}

interface Ctx {
  op: OperationDef;
  clean: (s: string) => string;
}

const details = (ctx: Ctx, status: string | undefined, body?: string) => ({
  service: ctx.op.service,
  operation: ctx.op.name,
  status,
  body,
  ambiguous: false,
});

function at(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/**
 * `{ ...value, queued }`, built so that every result of an operation shares one hidden class: a spread followed
 * by a property the source lacks made V8 (Node 20) create a new map for every result, in its slow runtime path
 * (~3% of a SendSMS call, bench/profile-client.ts) and leaving every later read of the result megamorphic.
 * Object.assign onto an empty object follows the shared transitions instead. Same own properties, same order.
 */
function withQueued(value: unknown, queued: boolean): Record<string, unknown> {
  const out = Object.assign({}, value) as Record<string, unknown>;
  out.queued = queued;
  return out;
}

function fromEnvelope(ctx: Ctx, envelope: unknown): unknown {
  const env = (envelope ?? {}) as { StatusCode?: unknown; Value?: unknown };
  const code = env.StatusCode;
  if (code !== 'Ok') {
    const status = typeof code === 'string' ? code : 'None';
    throw new GatewayError('AUTH', `login refused: ${status}`, details(ctx, status));
  }
  const value = env.Value;
  const check = ctx.op.statusCheck;
  if (!check) return value;
  const status = at(value, check.path);
  const text = typeof status === 'string' ? status : undefined;
  if (text !== undefined && check.queued?.includes(text)) return withQueued(value, true);
  if (text === undefined || !check.ok.includes(text)) {
    throw new GatewayError('REJECTED', `refused: ${text ?? 'no status in the answer'}`, details(ctx, text));
  }
  return ctx.op.sends ? withQueued(value, false) : value;
}

function fromLegacy(ctx: Ctx, result: unknown): unknown {
  const r = result as { raw: string; ok?: boolean };
  if (r.ok !== true) {
    const status = ctx.clean(r.raw.trim() || 'empty answer');
    throw new GatewayError('REJECTED', `refused: ${status}`, details(ctx, status, status.slice(0, 300)));
  }
  return ctx.op.result.legacy === 'send' ? withQueued(r, false) : r;
}

/** The resolved value of a typed method for a result as call() returns it. */
export function typedOutcome(
  op: OperationDef,
  result: unknown,
  clean: (s: string) => string,
  catalogue: Catalogue,
): unknown {
  const ctx: Ctx = { op, clean };
  if (op.service === 'legacy') return fromLegacy(ctx, result);
  if (op.result.type.kind === 'list') {
    // SendMobileOrFixlineSMS: one envelope per job created; any refusal fails the call (no silent partial send).
    const list = Array.isArray(result) ? result : [];
    if (list.length === 0)
      throw new GatewayError('REJECTED', 'refused: no job created', details(ctx, 'None'));
    const ok: unknown[] = [];
    for (const env of list) {
      try {
        ok.push(fromEnvelope(ctx, env));
      } catch (e) {
        if (e instanceof GatewayError && ok.length > 0) {
          const ids = ok.map((v) => (v as { JobId?: unknown }).JobId).join(', ');
          throw new GatewayError(
            e.code,
            `${e.message.replace(/^[^:]*: /, '')} (jobs already created: ${ids})`,
            {
              ...details(ctx, e.status),
            },
          );
        }
        throw e;
      }
    }
    return ok;
  }
  const value = fromEnvelope(ctx, result);
  // A list Value that XmlSerializer omitted (null) reads as an empty list.
  if (value === undefined && valueIsList(op, catalogue)) return [];
  return value;
}
