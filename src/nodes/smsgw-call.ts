/**
 * smsgw-call ("any operation"): client.invoke() from a flow. Service or path and operation from the dialog
 * (msg.service / msg.operation override), parameters from msg.payload (an object), SOAP header blocks from
 * msg.soapHeaders; the answer as a plain object on the node's Output property. An operation that costs goes
 * through the send gate like every send node's (send/gate.ts: guard, outbox, reference, flow control).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { InvokeOptions, InvokeTarget } from '../client';
import type { OperationDef } from '../catalogue';
import { GatewayError } from '../errors';
import { preloadGeneric } from '../client/preload';
import { resolveInvokeLimits, type InvokeLimits } from '../generic/limits';
import { isBytes, isDate } from '../shape';
import { attachConfig, requireConfig } from './config/config';
import { onInput, type InputResult } from './common/input';
import { nodeOutput } from './common/output';
import { queryStatus } from './common/present';
import { overridesOf } from './common/override-table';
import { jobStatus, warn } from './common/status';
import { deployFields } from './common/fields';
import { invokeThroughGate, type Invoked } from './send/gate';
import { emitRestored } from './send/restored';
import { sendOutcome } from './send/results';
import { sentFields, type SendDone } from './send/send-path';

interface CallDef extends NodeDef {
  gateway: string;
  output?: string;
  /** information, send, customer, legacy, or "path" (then `path`). */
  service?: string;
  path?: string;
  operation?: string;
  /**
   * Which parameters get the configuration's user and password: auto (the catalogue's names, User/Password for
   * an operation it does not know), none, named. (Not `credentials`: Node-RED keeps that name for itself.)
   */
  auth?: 'auto' | 'none' | 'named';
  userParam?: string;
  passwordParam?: string;
  typed?: boolean;
  /** List element names, comma-separated. */
  lists?: string;
  namespace?: string;
  soapAction?: string;
}

/** An object of parameters or header blocks, from any realm (a function node's `{}` is one). */
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isBytes(v) && !isDate(v);

const kindOf = (v: unknown): string =>
  Array.isArray(v) ? 'an array' : isBytes(v) ? 'a Buffer' : isDate(v) ? 'a Date' : `a ${typeof v}`;

/** msg.payload as the operation's parameters: an object, or nothing (undefined, null, ""). */
function paramsOf(payload: unknown): Record<string, unknown> {
  if (payload === undefined || payload === null || payload === '') return {};
  if (isObject(payload)) return payload;
  throw new GatewayError(
    'VALIDATION',
    `msg.payload must be an object with the operation's parameters, not ${kindOf(payload)}`,
  );
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;

/**
 * What the node outputs for an operation that went through the send gate, as close to invoke()'s answer as the
 * typed send allows: a typed service's envelope `{ StatusCode, Value }` (the Value as the typed client decodes
 * it), the older service's `{ raw, ok, id, queued }` (raw: the string invoke() gives); with the send nodes'
 * fields beside them: caption (as sent), reference, recovered, outbox.
 */
function gatedPayload(op: OperationDef, sent: SendDone): Record<string, unknown> {
  const value = sent.value;
  const answer =
    op.service === 'legacy' && typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : { StatusCode: 'Ok', Value: value };
  return { ...answer, ...sentFields(sent) };
}

function present(RED: NodeAPI, operation: string, done: Invoked): InputResult {
  if (done.kind === 'gated') {
    const outcome = sendOutcome(done.sent.value);
    return {
      payload: gatedPayload(done.op, done.sent),
      status: jobStatus(RED, outcome.JobId, outcome.queued),
    };
  }
  const value = done.value;
  // A typed service's envelope: a LoginStatus other than Ok shows yellow (invoke() does not judge it).
  const login = isObject(value) && typeof value.StatusCode === 'string' ? value.StatusCode : 'Ok';
  return {
    payload: value,
    status: login === 'Ok' ? queryStatus(operation, value) : warn(`${operation}: ${login}`),
  };
}

export default (RED: NodeAPI): void => {
  function SmsgwCall(this: Node, def: CallDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/query.ts); a refused one: the node only says why.
    if (!deployFields(RED, this, 'smsgw-call', def)) return;
    const config = attachConfig(RED, this, def.gateway);
    // The generic path's libraries (xmlbuilder2 alone: ~120 ms, several times that on a busy machine) load at
    // deploy, not while the first msg waits and every other flow with it.
    setImmediate(preloadGeneric);
    const o = overridesOf(RED, this, 'smsgw-call', def as unknown as Record<string, unknown>);
    const lists = (def.lists ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // settings.js smsgwInvokeLimits: the answer's limits (docs/nodes.md); a bad one fails every msg loudly.
    let limits: Readonly<InvokeLimits> | undefined;
    let limitsError: GatewayError | undefined;
    const setting = (RED.settings as unknown as Record<string, unknown>).smsgwInvokeLimits;
    try {
      if (setting !== undefined) limits = resolveInvokeLimits(setting);
    } catch (e) {
      limitsError = new GatewayError('CONFIG', `settings.js smsgwInvokeLimits: ${(e as Error).message}`);
      this.error(limitsError.message);
    }

    const output = nodeOutput(RED, def);
    // What costs may wait in the outbox: its outcome after a restart comes back here (as the send nodes emit it).
    emitRestored(RED, this, config, output);

    onInput(RED, this, output, async (msg, signal, ctx) => {
      if (limitsError) throw limitsError;
      // Sending no credentials ("none"), the node works with a configuration without an account.
      const cfg = requireConfig(config, def.auth !== 'none');
      const client = cfg.getClient();
      const target = o.msg(msg, 'service') ?? (def.service === 'path' ? text(def.path) : def.service);
      const operation = o.msg(msg, 'operation') ?? text(def.operation);
      if (!target || !operation) {
        throw new GatewayError(
          'VALIDATION',
          'choose a service or path and an operation (or set msg.service, msg.operation)',
        );
      }
      const headers = o.msg(msg, 'soapHeaders');
      const options: InvokeOptions = { signal, typed: def.typed === true, lists };
      if (limits) options.limits = limits;
      if (headers) options.headers = headers;
      if (text(def.namespace)) options.namespace = text(def.namespace)!;
      if (text(def.soapAction)) options.soapAction = text(def.soapAction)!;
      if (def.auth === 'none') options.credentials = false;
      else if (def.auth === 'named') {
        options.credentials = { user: text(def.userParam), password: text(def.passwordParam) };
      } else if (!client.knownOperation(target as InvokeTarget, operation)) {
        // The password cannot come from the msg: an operation the catalogue does not know gets the names every
        // operation of the gateway uses.
        options.credentials = { user: 'User', password: 'Password' };
      }
      const request = { target: target as InvokeTarget, operation, params: paramsOf(msg.payload), options };
      return present(RED, operation, await invokeThroughGate(cfg, request, signal, ctx));
    });
  }

  RED.nodes.registerType('smsgw-call', SmsgwCall);
};
