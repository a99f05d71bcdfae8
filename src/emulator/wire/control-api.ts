import type { EmulatorControl, InboundInput, SubscriberState } from '../contract';
import type { FaultInjector } from './fault-injection';
import type { StatusForcer } from './forced-status';
import type { RequestLog } from './request-log';

/** `/_emulator/...`: JSON in, JSON out (see docs/emulator.md). */
export interface ControlContext {
  control: EmulatorControl;
  faults: FaultInjector;
  statuses: StatusForcer;
  log: RequestLog;
  startedAt: number;
}

export interface JsonReply {
  status: number;
  body: unknown;
}

class BadRequest extends Error {}

function obj(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest('expected a JSON object');
  return body as Record<string, unknown>;
}

function str(o: Record<string, unknown>, key: string, optional = false): string | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') throw new BadRequest(`"${key}" must be a non-empty string`);
  return v;
}

function num(o: Record<string, unknown>, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadRequest(`"${key}" must be a finite number`);
  return v;
}

function bool(o: Record<string, unknown>, key: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') throw new BadRequest(`"${key}" must be true or false`);
  return v;
}

function inbound(o: Record<string, unknown>): InboundInput {
  const input: InboundInput = {
    from: str(o, 'from') as string,
    text: typeof o.text === 'string' ? o.text : '',
  };
  if (typeof o.text !== 'string') throw new BadRequest('"text" must be a string');
  const user = str(o, 'user', true);
  if (user !== undefined) input.user = user;
  const to = str(o, 'to', true);
  if (to !== undefined) input.to = to;
  if (o.jobId !== undefined) input.jobId = num(o, 'jobId');
  if (o.report !== undefined) input.report = bool(o, 'report');
  if (o.date !== undefined) {
    const d = new Date(String(o.date));
    if (Number.isNaN(d.getTime())) throw new BadRequest('"date" must be an ISO date');
    input.date = d;
  }
  return input;
}

/** Faults and forced statuses alike: GET lists, POST adds one spec or an array of them, DELETE clears. */
function queueRoute<S>(
  method: string,
  queue: { list(): unknown[]; add(spec: S): unknown; clear(): void },
  key: string,
  body: unknown,
): JsonReply {
  if (method === 'DELETE') queue.clear();
  if (method === 'POST')
    for (const s of Array.isArray(body) ? body : [body]) queue.add(obj(s) as unknown as S);
  return { status: 200, body: { [key]: queue.list() } };
}

const SUBSCRIBER_STATES: readonly SubscriberState[] = ['ok', 'unknown', 'unreachable'];

export function handleControl(ctx: ControlContext, method: string, path: string, body: unknown): JsonReply {
  const { control, faults, statuses, log } = ctx;
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  try {
    switch (route) {
      case 'GET /_emulator/health':
        return { status: 200, body: { ok: true, uptimeMs: Date.now() - ctx.startedAt } };
      case 'GET /_emulator/state':
        return { status: 200, body: control.snapshot() };
      case 'POST /_emulator/inbound':
        return { status: 200, body: control.injectInbound(inbound(obj(body))) };
      case 'POST /_emulator/advance': {
        const ms = num(obj(body), 'ms');
        if (ms < 0) throw new BadRequest('"ms" must not be negative');
        control.advance(ms);
        return { status: 200, body: { ok: true } };
      }
      case 'POST /_emulator/finish':
        return { status: 200, body: { finished: control.finishJobs() } };
      case 'POST /_emulator/balance': {
        const o = obj(body);
        control.setBalance(str(o, 'user') as string, num(o, 'balance'));
        return { status: 200, body: { ok: true } };
      }
      case 'POST /_emulator/lock': {
        const o = obj(body);
        control.lockAccount(str(o, 'user') as string, bool(o, 'locked'));
        return { status: 200, body: { ok: true } };
      }
      case 'POST /_emulator/iplock': {
        const o = obj(body);
        const a = o.addresses;
        if (a !== null && !(Array.isArray(a) && a.every((x) => typeof x === 'string'))) {
          throw new BadRequest('"addresses" must be an array of strings or null');
        }
        control.setIpAllowList(str(o, 'user') as string, a as string[] | null);
        return { status: 200, body: { ok: true } };
      }
      case 'POST /_emulator/subscriber': {
        const o = obj(body);
        const state = o.state as SubscriberState;
        if (!SUBSCRIBER_STATES.includes(state))
          throw new BadRequest(`"state" must be one of ${SUBSCRIBER_STATES.join(', ')}`);
        control.setSubscriberState(str(o, 'number') as string, state);
        return { status: 200, body: { ok: true } };
      }
      case 'GET /_emulator/caption-match':
        return { status: 200, body: { mode: control.getCaptionMatch() } };
      case 'POST /_emulator/caption-match': {
        const mode = obj(body).mode;
        if (mode !== 'exact' && mode !== 'prefix') throw new BadRequest('"mode" must be "exact" or "prefix"');
        control.setCaptionMatch(mode);
        return { status: 200, body: { mode } };
      }
      case 'GET /_emulator/faults':
      case 'POST /_emulator/faults':
      case 'DELETE /_emulator/faults':
        return queueRoute(method, faults, 'faults', body);
      case 'GET /_emulator/status':
      case 'POST /_emulator/status':
      case 'DELETE /_emulator/status':
        return queueRoute(method, statuses, 'statuses', body);
      case 'GET /_emulator/requests':
        return { status: 200, body: { requests: log.list() } };
      case 'DELETE /_emulator/requests':
        log.clear();
        return { status: 200, body: { requests: [] } };
      default:
        return { status: 404, body: { error: `no such control endpoint: ${route}` } };
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      status: err instanceof BadRequest || err instanceof TypeError ? 400 : 500,
      body: { error: message },
    };
  }
}
