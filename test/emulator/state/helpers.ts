import { findOperation, type ServiceName } from '../../../src/catalogue';
import type { CallContext, ParamValues } from '../../../src/emulator/contract';
import { GatewayState, type GatewayStateOptions } from '../../../src/emulator/state';

export const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
export const CTX: CallContext = { remoteAddress: '127.0.0.1', transport: 'soap11' };
export const AUTH = { User: 'demo', Password: 'demo-password' } as const;

export type Rec = Record<string, unknown>;
export interface Envelope<V = Rec> {
  StatusCode: string;
  Value?: V;
}

/** A state on a fixed clock (advance() moves it), default timing 200 ms processing + 500 ms delivery. */
export function makeState(options: GatewayStateOptions = {}): GatewayState {
  return new GatewayState({ clock: () => T0, ...options });
}

export function call(
  state: GatewayState,
  service: ServiceName,
  name: string,
  params: ParamValues,
  ctx = CTX,
): unknown {
  const op = findOperation(service, name);
  if (!op) throw new Error(`no operation ${service}/${name}`);
  return state.invoke(op, params, ctx);
}

export function typed<V = Rec>(
  state: GatewayState,
  service: ServiceName,
  name: string,
  params: ParamValues,
  ctx = CTX,
): Envelope<V> {
  return call(state, service, name, { ...AUTH, ...params }, ctx) as Envelope<V>;
}

export function legacy(state: GatewayState, name: string, params: ParamValues, ctx = CTX): string {
  const result = call(state, 'legacy', name, { ...AUTH, ...params }, ctx);
  if (typeof result !== 'string') throw new Error(`legacy ${name} did not answer a string`);
  return result;
}

export interface JobInfo {
  Status: string;
  JobId: number;
}

export function sendSms(state: GatewayState, params: ParamValues = {}): JobInfo {
  const r = typed<JobInfo>(state, 'send', 'SendSMS', {
    Caption: 'test',
    Sender: 'ACME',
    Recipient: ['+4917012345678'],
    SMSText: 'Hello',
    SmsTyp: 'Standard',
    SendDate: null,
    ...params,
  });
  if (r.StatusCode !== 'Ok' || !r.Value) throw new Error(`SendSMS login status ${r.StatusCode}`);
  return r.Value;
}

export function balance(state: GatewayState): number {
  return typed<number>(state, 'information', 'QueryAccountBalance', {}).Value!;
}

export function jobById(state: GatewayState, id: number): Rec {
  const jobs = typed<Rec[]>(state, 'information', 'QueryJobs', { StartDate: null, EndDate: null }).Value!;
  const job = jobs.find((j) => j['Id'] === id);
  if (!job) throw new Error(`job ${id} not found`);
  return job;
}
