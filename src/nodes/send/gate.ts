/**
 * The send gate: the one door of every operation that costs money or reaches a phone (catalogue `costs`: every
 * SMS of either service, binary and UDH messages, HLR lookups, SMSCR). The send nodes, the older service's send
 * node, the ask node, the customer node and the any-operation node all send through it; nothing else calls such
 * an operation on the client (test/architecture/send-gate.test.ts). In order, for each message:
 *   1. bad input is refused (VALIDATION) before anything is counted, stored or sent;
 *   2. the opt-out check refuses recipients on the configuration's opt-out list (opt-out.ts): the others are sent
 *      (the node then reports OPTED_OUT after its output, `ctx.partly`), none left: OPTED_OUT, nothing counted;
 *   3. coordinated instances that share their rate limit through Redis refuse while Redis is away (no outbox);
 *   4. the spending guard reserves segments x recipients, or refuses (BUDGET);
 *   5. the durable outbox takes it when the config has it on (and sends it from there); inside the quiet hours
 *      (a send node's message that is not critical) it holds it until they end, or, without the outbox, the
 *      message is refused (QUIET_HOURS);
 *   6. the unique reference goes into the Caption (the config node's setting);
 *   7. flow control (rate, in flight, queue) runs inside the client, around the request itself.
 * Resolves with what the node outputs: the result, the caption as sent, and whether the job was found by its
 * reference (`recovered`) or sent later from the outbox.
 */
import { randomUUID } from 'node:crypto';
import { CATALOGUE, type OperationDef } from '../../catalogue';
import type { InvokeOptions, InvokeTarget } from '../../client';
import { methodName } from '../../client';
import { GatewayError, isGatewayError } from '../../errors';
import type { Budget } from '../../reliability/budget';
import { sendCost } from '../../reliability/budget-cost';
import { outcomeOf } from '../../reliability/budget-sender';
import { captionParamOf } from '../../reliability/job-lookup';
import {
  captionWithReference,
  createReference,
  resolveReferenceOptions,
  type ResolvedReferenceOptions,
} from '../../reliability/reference';
import type { SmsgwConfigNode } from '../config/config-node';
import { optOutCheck, optedOutError } from './opt-out';
import { paceKeys, type PaceHost } from '../config/pace-host';
import { recipientsOf, typedParams, withoutRecipients } from './gate-params';

export interface SendDone {
  value: unknown;
  /** The caption as the gateway got it (the flow's caption plus the reference); undefined without a Caption. */
  caption: string | undefined;
  reference: string | undefined;
  /** The job was found by its reference after an answer was lost (or a retry was refused as duplicate). */
  recovered: boolean;
  /** The message was kept in the outbox and sent from there later. */
  outbox: boolean;
  /** Recipients not sent to (on the opt-out list), as the flow wrote them; empty when all were sent. */
  skipped: string[];
}

/** What a node tells the gate about its msg (the input wrapper's context). */
export interface SendContext {
  /** The node that sends: outcomes of its messages come back to it after a restart. */
  origin?: string;
  /** The outbox has the message durably: the node acknowledges it now (done()). */
  accepted?(): void;
  /** The message waits in the outbox for the gateway. */
  kept?(): void;
  /**
   * `critical`: the spending guard lets the message use its reserve above the limits (msg.priority, or a node
   * that sends on its own, such as the escalation steps of an ask). Anything else is a normal message.
   */
  priority?: 'critical' | undefined;
  /**
   * The reference to carry in the Caption (default: a new one). A node that sends on its own (an ask node's
   * step) writes it down first, so that after a crash it finds out by it whether the message went out. It is
   * also the key the spending guard counts the message under: sent again after a crash, it is not counted twice
   * while the first count is still pending.
   */
  reference?: string;
  /** Sent before with this reference (a crash since): look it up from `lookupFirst.since` before sending. */
  lookupFirst?: { since: number };
  /**
   * The config's quiet hours apply (a send node's message, unless the node is set to send at any hour): inside
   * them the message is held in the outbox until they end, critical ones excepted.
   */
  quiet?: boolean;
  /** msg.topic: stored with an entry held for the quiet hours, which can be cancelled by it. */
  topic?: string | undefined;
  /** The message is held in the outbox until `until` (ms since epoch): the quiet hours. */
  held?(until: number): void;
  /**
   * Some recipients were on the opt-out list and left out; the others were sent. Called once the message went
   * out, before the promise resolves: the node reports `error` (OPTED_OUT) after its output, for a Catch node.
   */
  partly?(error: GatewayError): void;
  /**
   * The opt-out list's own answer to a keyword (the STOP confirmation, a HELP answer): not checked against the
   * list. Set by the list only, never from a msg.
   */
  exempt?: boolean;
}

const isRecovered = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.some(isRecovered)
    : typeof value === 'object' && value !== null && (value as Record<string, unknown>).recovered === true;

function asSent(
  caption: unknown,
  reference: string | undefined,
  options: ResolvedReferenceOptions | undefined,
): string | undefined {
  const base = typeof caption === 'string' ? caption : '';
  if (!reference) return base;
  return captionWithReference(base, reference, options ?? resolveReferenceOptions(undefined));
}

/** The fields of a send's outcome that depend on how it went, from a settled outbox entry or a direct send. */
export function sendDone(
  value: unknown,
  caption: unknown,
  reference: string | undefined,
  options: ResolvedReferenceOptions | undefined,
  outbox: boolean,
  skipped: string[] = [],
): SendDone {
  return {
    value,
    caption: asSent(caption, reference, options),
    reference,
    recovered: isRecovered(value),
    outbox,
    skipped,
  };
}

/** What the gate has let through steps 1 to 4: the guard's reservation still to be made and settled. */
interface Admitted {
  budget: Budget | undefined;
  guard: Guard | undefined;
  /** The parameters to send: without the recipients the opt-out list refused. */
  params: Record<string, unknown>;
  /** Those recipients, as the flow wrote them, and their refusal (reported after the send). */
  skipped: string[];
  refusal: GatewayError | undefined;
}

interface Guard {
  reserve(key: string): Promise<string>;
}

/**
 * Steps 1 to 4 up to the reservation: the input checked (`validate`: the catalogue's rules for `op`), the
 * opt-out check (`whole`: a message that cannot be split, refused when any recipient is on the list), Redis'
 * shared rate limit (unless the outbox keeps the message meanwhile), the guard's check.
 */
async function admit(
  cfg: SmsgwConfigNode,
  op: OperationDef,
  given: Record<string, unknown>,
  ctx: SendContext,
  validate: boolean,
  outboxKeeps: boolean,
  whole = false,
): Promise<Admitted> {
  if (op.costs !== true) {
    throw new GatewayError('CONFIG', `${op.name} costs nothing: it is not sent through the send gate`, {
      operation: op.name,
    });
  }
  const host = cfg.reliability;
  if (host?.configError) throw host.configError;
  // Missing or bad values, a text too long for its type, recipients that are no phone number: nothing follows.
  if (validate) cfg.getClient().checkParams(op.service, op.name, given);
  // Recipients on the opt-out list: left out (a person's STOP wins, critical or not); none left: refused.
  let params = given;
  let skipped: string[] = [];
  let refusal: GatewayError | undefined;
  // Without an opt-out list nothing is read (optOutCheck would find none refused).
  if (!ctx.exempt && cfg.optOut) {
    const recipients = recipientsOf(given);
    const refused = await optOutCheck({ config: cfg, op, recipients });
    if (refused.length > 0) {
      refusal = optedOutError(op, refused, recipients);
      if (whole || refused.length === recipients.length) throw refusal;
      params = withoutRecipients(given, new Set(refused.map((r) => r.index)));
      skipped = refused.map((r) => recipients[r.index]!);
    }
  }
  // Coordinated instances share one rate limit: while Redis is away a send waits in the outbox, or is refused.
  const blocked = outboxKeeps ? undefined : await host?.sendBlocked();
  if (blocked !== undefined) throw redisDownRefusal(blocked);
  // The spending guard: segments x recipients, refused (BUDGET) before anything is stored or sent.
  const budget = host?.budget ? await host.budget.budget() : undefined;
  const guard = budget ? budgetGuard(budget, op, params, ctx.priority) : undefined;
  return { budget, guard, params, skipped, refusal };
}

/**
 * Sends one message of a marked operation. With the outbox on, the message is first stored durably
 * (`ctx.accepted()`), then sent; `ctx.kept()` is called when it has to wait for the gateway. The promise resolves
 * when the gateway's answer (or a lookup) settles it, or rejects when it is refused for good, cleared, or the
 * node stops (`signal`; the entry stays and its outcome comes back to the node later).
 */
export async function sendMessage(
  cfg: SmsgwConfigNode,
  op: OperationDef,
  given: Record<string, unknown>,
  signal: AbortSignal,
  ctx: SendContext = {},
): Promise<SendDone> {
  const host = cfg.reliability;
  if (host?.configError) throw host.configError;
  const captionParam = captionParamOf(op);
  const caption = captionParam ? given[captionParam] : undefined;
  const box = captionParam && host ? await host.outbox() : undefined;
  const { budget, guard, params, skipped, refusal } = await admit(
    cfg,
    op,
    given,
    ctx,
    true,
    box !== undefined,
  );
  // Per message only while quiet hours are set and apply: nothing is computed otherwise.
  const notBefore =
    ctx.quiet === true && host?.quiet && ctx.priority !== 'critical'
      ? host.quiet.openFrom(host.clock.now(), recipientsOf(params))
      : undefined;
  if (notBefore !== undefined && (!box || notBefore === Infinity)) throw quietRefusal(op, notBefore, !box);
  if (box && host) {
    // Refusing: counted now, before the outbox accepts it (the attempts find the count under the entry's id).
    // Holding: counted when it goes out; until its window has room it waits in the outbox.
    const id = guard && !budget?.hold ? await reserveFirst(guard, ctx.reference) : undefined;
    let accepted = false;
    try {
      const r = await box.submit(op.service, op.name, params, {
        origin: ctx.origin,
        signal,
        onAccepted: () => {
          accepted = true;
          ctx.accepted?.();
        },
        onKept: ctx.kept,
        id,
        priority: ctx.priority,
        reference: ctx.reference,
        maybeSent: ctx.lookupFirst !== undefined,
        ...(notBefore !== undefined
          ? { notBefore, topic: ctx.topic, ...(ctx.held ? { onHeld: ctx.held } : {}) }
          : {}),
      });
      // Recipients that went on the list while the message waited in the outbox were left out then.
      const later = cfg.optOut?.skippedAtSend(r.reference) ?? [];
      const left = [...skipped, ...later];
      if (later.length > 0 || refusal) ctx.partly?.(later.length > 0 ? skippedLater(op, left) : refusal!);
      return sendDone(r.result, caption, r.reference, host.referenceOptions, r.kept, left);
    } catch (e) {
      if (id !== undefined && !accepted) budget?.settle(id, 'notSent');
      throw e;
    }
  }
  // Chosen here (not inside the client) so the node knows the caption as sent.
  const options = host?.referenceOptions;
  const reference =
    captionParam && (options || ctx.reference)
      ? (ctx.reference ?? createReference(options!.length))
      : undefined;
  const since = ctx.lookupFirst && reference ? ctx.lookupFirst.since : undefined;
  // Pacing per number without the outbox: the send waits in memory for its slot (or is refused with PACED).
  const pace = host?.pace();
  const slot = pace ? await paceSlot(await pace, op, params, signal, ctx.priority) : undefined;
  let value: unknown;
  try {
    const key = guard ? await guard.reserve(ctx.reference ?? randomUUID()) : undefined;
    try {
      value = await callMarked(cfg, op, params, signal, reference, since);
    } catch (e) {
      // Surely not sent: the count goes back; unknown (a lost answer): it stays counted.
      if (key !== undefined) budget?.settle(key, outcomeOf(e));
      throw e;
    }
    if (key !== undefined) budget?.settle(key, 'sent');
  } finally {
    // Its time stays counted, sent or not (the safe side for the carrier).
    if (slot !== undefined) slot.pacer.settle(slot.id);
  }
  if (refusal) ctx.partly?.(refusal);
  return {
    value,
    caption: captionParam ? asSent(caption, reference, options) : undefined,
    reference,
    recovered: isRecovered(value),
    outbox: false,
    skipped,
  };
}

/** Waits for the slot of a message's numbers (none for an HLR lookup); resolves with what to settle after. */
async function paceSlot(
  pace: PaceHost,
  op: OperationDef,
  params: Record<string, unknown>,
  signal: AbortSignal,
  priority: 'critical' | undefined,
): Promise<{ pacer: PaceHost['pacer']; id: string } | undefined> {
  const keys = paceKeys(op.name, params);
  if (keys.length === 0) return undefined;
  const id = randomUUID();
  await pace.waits.slot(id, keys, priority === 'critical', signal, op.name);
  return { pacer: pace.pacer, id };
}

/** The refusal of recipients left out of an outbox attempt (they went on the list after it was accepted). */
function skippedLater(op: OperationDef, skipped: readonly string[]): GatewayError {
  return new GatewayError(
    'OPTED_OUT',
    `not sent to ${skipped.length} ${skipped.length === 1 ? 'recipient' : 'recipients'} on the opt-out list (the others were sent)`,
    {
      operation: op.name,
      service: op.service,
      ambiguous: false,
      detail: { optedOut: [...skipped], sent: true },
    },
  );
}

/** The client's method name of each marked operation (methodName splits the name with a regular expression). */
const methods = new WeakMap<OperationDef, string>();

function methodOf(op: OperationDef): string {
  let name = methods.get(op);
  if (name === undefined) {
    name = methodName(op);
    methods.set(op, name);
  }
  return name;
}

type TypedMethod = (
  params: Record<string, unknown>,
  options: { signal: AbortSignal; reference?: string; lookupFirst?: boolean; since?: number },
) => Promise<unknown>;

/**
 * The client's typed method of a marked operation: looked up here and nowhere else in the nodes (the lookup of
 * the other operations, config/gateway.ts, refuses marked ones), so a method name built from the catalogue
 * cannot reach one around the gate.
 */
function callMarked(
  cfg: SmsgwConfigNode,
  op: OperationDef,
  params: Record<string, unknown>,
  signal: AbortSignal,
  reference: string | undefined,
  since: number | undefined,
): Promise<unknown> {
  const client = cfg.getClient();
  const group = (client as unknown as Record<string, Record<string, unknown> | undefined>)[op.service];
  const fn = group?.[methodOf(op)];
  if (typeof fn !== 'function') {
    return Promise.reject(new GatewayError('CONFIG', `the client offers no ${op.service}.${methodOf(op)}()`));
  }
  return (fn as TypedMethod).call(group, params, {
    signal,
    ...(reference ? { reference } : {}),
    ...(since !== undefined ? { lookupFirst: true, since } : {}),
  });
}

/** What the any-operation node asks for: `client.invoke()`'s arguments. */
export interface InvokeRequest {
  target: InvokeTarget;
  operation: string;
  params: Record<string, unknown>;
  options: InvokeOptions;
}

/** How the gate answered an invoke: invoke()'s answer, or a marked operation's through the gate. */
export type Invoked =
  | { kind: 'plain'; value: unknown }
  | { kind: 'gated'; op: OperationDef; sent: SendDone }
  | { kind: 'counted'; op: OperationDef; value: unknown };

/**
 * `client.invoke()` for the any-operation node, through the gate for what costs:
 * - a marked operation of one of the config's services (by service name or by the service's path) is sent as
 *   the send nodes send it (all seven steps; the typed client's answer, `{ string: [...] }` lists unwrapped);
 *   the node's Namespace, SOAPAction, SOAP headers and credential names cannot apply there and are refused;
 * - an operation on a path the config does not know, named like a marked one (SendSMS, SendText, SMSCR...), is
 *   taken to cost as that one does (the safe side): checked by the opt-out list and counted by the guard, then
 *   sent with invoke() as given (no reference, no outbox: the gate cannot look a job up on an unknown service);
 * - anything else goes to invoke() as it is.
 */
export async function invokeThroughGate(
  cfg: SmsgwConfigNode,
  request: InvokeRequest,
  signal: AbortSignal,
  ctx: SendContext = {},
): Promise<Invoked> {
  const client = cfg.getClient();
  const { target, operation, params, options } = request;
  // VALIDATION for a target or name invoke() would refuse, before anything else.
  const known = client.knownOperation(target, operation);
  if (known?.costs === true) {
    refuseInvokeOptions(known, options);
    return {
      kind: 'gated',
      op: known,
      sent: await sendMessage(cfg, known, typedParams(known, params), signal, ctx),
    };
  }
  const alike = known ? undefined : markedNamed(operation);
  if (!alike)
    return { kind: 'plain', value: await client.invoke(target, operation, params, { ...options, signal }) };
  // Sent as given (no typed parameters to take a recipient out of): refused when any recipient is on the list.
  const { budget, guard } = await admit(cfg, alike, params, ctx, false, false, true);
  const key = guard ? await guard.reserve(randomUUID()) : undefined;
  let value: unknown;
  try {
    value = await client.invoke(target, operation, params, { ...options, signal });
  } catch (e) {
    if (key !== undefined) budget?.settle(key, outcomeOf(e));
    throw e;
  }
  if (key !== undefined) budget?.settle(key, 'sent');
  return { kind: 'counted', op: alike, value };
}

/** The marked operation of that name in either service (the typed one first), if there is one. */
function markedNamed(name: string): OperationDef | undefined {
  return CATALOGUE.operations.find((op) => op.costs === true && op.name === name);
}

/** Options of invoke() the typed send cannot honour: refused, so that nothing goes out other than asked. */
function refuseInvokeOptions(op: OperationDef, options: InvokeOptions): void {
  const given = [
    options.namespace !== undefined ? 'a Namespace' : undefined,
    options.soapAction !== undefined ? 'a SOAPAction' : undefined,
    options.headers !== undefined ? 'msg.soapHeaders' : undefined,
    options.style !== undefined ? 'a style' : undefined,
    options.credentials !== undefined ? 'credentials other than automatic' : undefined,
  ].filter((s) => s !== undefined);
  if (given.length === 0) return;
  throw new GatewayError(
    'VALIDATION',
    `${op.name} costs money and goes through the send gate, which sends it as the send nodes do (the ` +
      `configuration's namespace and account); remove ${given.join(', ')}`,
    { service: op.service, operation: op.name, ambiguous: false },
  );
}

/**
 * The reservation made before the outbox accepts a message; undefined when the shared count cannot be reached
 * (Redis away): the outbox keeps the message meanwhile, and its attempt reserves once Redis is back.
 */
async function reserveFirst(guard: Guard, key: string | undefined): Promise<string | undefined> {
  try {
    return await guard.reserve(key ?? randomUUID());
  } catch (e) {
    if (isGatewayError(e) && e.code === 'NETWORK') return undefined;
    throw e;
  }
}

/** Reserves a send's cost under a key (resolving with the key), or refuses it with BUDGET. */
function budgetGuard(
  budget: Budget,
  op: OperationDef,
  params: Record<string, unknown>,
  priority: 'critical' | undefined,
): Guard {
  const cost = sendCost(op, params);
  const options = { critical: priority === 'critical', service: op.service, operation: op.name };
  // A message that can never fit is refused now, also when the guard holds the others.
  budget.check(cost, options);
  return {
    reserve: async (key) => {
      await budget.reserve(key, cost, options);
      return key;
    },
  };
}

/**
 * A send inside the quiet hours that cannot be held: the outbox is off (a message is never held in memory only,
 * where a restart would lose it), or its recipients' windows share no open time.
 */
function quietRefusal(op: OperationDef, until: number, noOutbox: boolean): GatewayError {
  const message = noOutbox
    ? `not sent: inside the quiet hours (until ${new Date(until).toISOString()}); switch on the outbox to hold messages until they end`
    : "not sent: inside the quiet hours, and its recipients' time zones share no time outside them; send to them separately";
  return new GatewayError('QUIET_HOURS', message, {
    service: op.service,
    operation: op.name,
    ambiguous: false,
    ...(noOutbox ? { retryAt: until } : {}),
  });
}

function redisDownRefusal(why: string): GatewayError {
  return new GatewayError(
    'NETWORK',
    `not sent: Redis cannot be reached (${why}) and the instances share their rate limit through it; switch on the outbox to keep sends until Redis is back`,
    { ambiguous: false },
  );
}
