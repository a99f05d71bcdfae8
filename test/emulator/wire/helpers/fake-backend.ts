import { complexType, enumType } from '../../../../src/catalogue';
import type { OperationDef, TypeRef } from '../../../../src/catalogue/types';
import type {
  CallContext,
  EmulatorControl,
  GatewayBackend,
  InboundInput,
  ParamValues,
  SubscriberState,
} from '../../../../src/emulator/contract';

export interface RecordedCall {
  op: OperationDef;
  params: ParamValues;
  ctx: CallContext;
}

/** A stand-in for the business state: answers every operation with catalogue-shaped sample data. */
export class FakeBackend implements GatewayBackend, EmulatorControl {
  readonly calls: RecordedCall[] = [];
  readonly controlCalls: Array<[string, ...unknown[]]> = [];
  /** When set, invoke throws this. */
  failWith: Error | undefined;
  /** When set, replaces the sample result. */
  resultOverride: ((op: OperationDef, params: ParamValues) => unknown) | undefined;
  balance = 42.5;

  constructor(
    readonly user = 'demo',
    readonly password = 'secret',
  ) {}

  get lastCall(): RecordedCall | undefined {
    return this.calls[this.calls.length - 1];
  }

  invoke(op: OperationDef, params: ParamValues, ctx: CallContext): unknown {
    this.calls.push({ op, params, ctx });
    if (this.failWith) throw this.failWith;
    if (this.resultOverride) return this.resultOverride(op, params);
    const userParam = op.params.find((p) => p.credential === 'user');
    const passParam = op.params.find((p) => p.credential === 'password');
    const ok = params[userParam?.name ?? ''] === this.user && params[passParam?.name ?? ''] === this.password;
    if (op.service === 'legacy')
      return ok ? (op.name === 'QueryBalance2' ? String(this.balance) : 'OK 4711') : 'Error Login';
    if (op.result.type.kind === 'list') {
      return [{ StatusCode: ok ? 'Ok' : 'InvalidUser', Value: ok ? { Status: 'Ok', JobId: 1 } : undefined }];
    }
    if (!ok) return { StatusCode: 'InvalidUser' };
    const env = complexType((op.result.type as { name: string }).name);
    const valueType = env.fields[1]?.type as TypeRef;
    return {
      StatusCode: 'Ok',
      Value: op.name === 'QueryAccountBalance' ? this.balance : sample(valueType, 0),
    };
  }

  injectInbound(input: InboundInput): { id: number } {
    this.controlCalls.push(['injectInbound', input]);
    return { id: 7 };
  }
  advance(ms: number): void {
    this.controlCalls.push(['advance', ms]);
  }
  finishJobs(): number {
    this.controlCalls.push(['finishJobs']);
    return 3;
  }
  setBalance(user: string, balance: number): void {
    this.controlCalls.push(['setBalance', user, balance]);
    this.balance = balance;
  }
  lockAccount(user: string, locked: boolean): void {
    this.controlCalls.push(['lockAccount', user, locked]);
  }
  setIpAllowList(user: string, addresses: string[] | null): void {
    this.controlCalls.push(['setIpAllowList', user, addresses]);
  }
  setSubscriberState(number: string, state: SubscriberState): void {
    this.controlCalls.push(['setSubscriberState', number, state]);
  }
  captionMatch: 'exact' | 'prefix' = 'exact';
  setCaptionMatch(mode: 'exact' | 'prefix'): void {
    this.controlCalls.push(['setCaptionMatch', mode]);
    this.captionMatch = mode;
  }
  getCaptionMatch(): 'exact' | 'prefix' {
    return this.captionMatch;
  }
  snapshot(): unknown {
    return { accounts: [{ user: this.user, balance: this.balance }], calls: this.calls.length };
  }
}

/** A sample value of a catalogue type: one or two items per list, every field filled. */
export function sample(type: TypeRef, depth: number): unknown {
  switch (type.kind) {
    case 'primitive':
      switch (type.name) {
        case 'string':
          return depth % 2 ? 'text <&> ' + depth : '';
        case 'int':
          return 17 + depth;
        case 'double':
          return 0.1;
        case 'boolean':
          return true;
        case 'dateTime':
          return depth % 2 ? new Date(Date.UTC(2026, 10, 22, 10, 0, 0, 250)) : null;
        case 'base64Binary':
          return Buffer.from([1, 2, 3]);
      }
      return undefined;
    case 'enum':
      return enumType(type.name).values[1] ?? enumType(type.name).values[0];
    case 'list':
      return depth > 2 ? [] : [sample(type.item, depth + 1), sample(type.item, depth + 2)];
    case 'complex': {
      const out: Record<string, unknown> = {};
      for (const f of complexType(type.name).fields) out[f.name] = sample(f.type, depth + 1);
      return out;
    }
  }
}
