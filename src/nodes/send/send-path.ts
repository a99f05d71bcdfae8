/**
 * The one path of every send node's message to the gateway: the unique reference in the Caption (the config
 * node's setting), the flow control of the config node (inside the client), and the durable outbox when the
 * config has it on. Resolves with what the node outputs: the result, the caption as sent, and whether the job
 * was found by its reference (`recovered`) or sent later from the outbox.
 */
import { randomUUID } from 'node:crypto';
import type { OperationDef } from '../../catalogue';
import { GatewayError, isGatewayError } from '../../errors';
import type { Budget } from '../../reliability/budget';
import { sendCost } from '../../reliability/budget-cost';
import { outcomeOf } from '../../reliability/budget-sender';
import { overContentCap } from '../../text';
import { bytesOf, isBytes } from '../../shape';
import { captionParamOf } from '../../reliability/job-lookup';
import {
  captionWithReference,
  createReference,
  resolveReferenceOptions,
  type ResolvedReferenceOptions,
} from '../../reliability/reference';
import { callOperation } from '../config/gateway';
import type { SmsgwConfigNode } from '../config/config-node';
import { kindOf } from '../../value-kind';

export interface SendDone {
  value: unknown;
  /** The caption as the gateway got it (the flow's caption plus the reference); undefined without a Caption. */
  caption: string | undefined;
  reference: string | undefined;
  /** The job was found by its reference after an answer was lost (or a retry was refused as duplicate). */
  recovered: boolean;
  /** The message was kept in the outbox and sent from there later. */
  outbox: boolean;
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

/** What a send node tells the send path about its msg (the input wrapper's context). */
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
}

/** msg.priority as the send path takes it: "critical" (any case, trimmed) or normal. */
export function priorityOf(value: unknown): 'critical' | undefined {
  return typeof value === 'string' && value.trim().toLowerCase() === 'critical' ? 'critical' : undefined;
}

/** The fields of a send's outcome that depend on how it went, from a settled outbox entry or a direct send. */
export function sendDone(
  value: unknown,
  caption: unknown,
  reference: string | undefined,
  options: ResolvedReferenceOptions | undefined,
  outbox: boolean,
): SendDone {
  return {
    value,
    caption: asSent(caption, reference, options),
    reference,
    recovered: isRecovered(value),
    outbox,
  };
}

/**
 * Sends one message. With the outbox on, the message is first stored durably (`ctx.accepted()`), then sent;
 * `ctx.kept()` is called when it has to wait for the gateway. The promise resolves when the gateway's answer
 * (or a lookup) settles it, or rejects when it is refused for good, cleared, or the node stops (`signal`; the
 * entry stays and its outcome comes back to the node later).
 */
export async function sendMessage(
  cfg: SmsgwConfigNode,
  op: OperationDef,
  params: Record<string, unknown>,
  signal: AbortSignal,
  ctx: SendContext = {},
): Promise<SendDone> {
  const host = cfg.reliability;
  if (host?.configError) throw host.configError;
  const client = cfg.getClient();
  const captionParam = captionParamOf(op);
  const caption = captionParam ? params[captionParam] : undefined;
  const box = captionParam && host ? await host.outbox() : undefined;
  // Coordinated instances share one rate limit: while Redis is away a send waits in the outbox, or is refused.
  const blocked = box ? undefined : await host?.sendBlocked();
  if (blocked !== undefined) throw redisDownRefusal(blocked);
  // The spending guard: segments x recipients, refused (BUDGET) before anything is stored or sent.
  const budget = host?.budget ? await host.budget.budget() : undefined;
  const guard = budget ? budgetGuard(budget, op, params, ctx.priority) : undefined;
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
      });
      return sendDone(r.result, caption, r.reference, host.referenceOptions, r.kept);
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
  const lookup =
    ctx.lookupFirst && reference ? { lookupFirst: true as const, since: ctx.lookupFirst.since } : undefined;
  const key = guard ? await guard.reserve(ctx.reference ?? randomUUID()) : undefined;
  let value: unknown;
  try {
    value = await callOperation(client, op, params, signal, reference, undefined, lookup);
  } catch (e) {
    // Surely not sent: the count goes back; unknown (a lost answer): it stays counted.
    if (key !== undefined) budget?.settle(key, outcomeOf(e));
    throw e;
  }
  if (key !== undefined) budget?.settle(key, 'sent');
  return {
    value,
    caption: captionParam ? asSent(caption, reference, options) : undefined,
    reference,
    recovered: isRecovered(value),
    outbox: false,
  };
}

/**
 * The reservation made before the outbox accepts a message; undefined when the shared count cannot be reached
 * (Redis away): the outbox keeps the message meanwhile, and its attempt reserves once Redis is back.
 */
async function reserveFirst(
  guard: { reserve(key: string): Promise<string> },
  key: string | undefined,
): Promise<string | undefined> {
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
): { reserve(key: string): Promise<string> } {
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

function redisDownRefusal(why: string): GatewayError {
  return new GatewayError(
    'NETWORK',
    `not sent: Redis cannot be reached (${why}) and the instances share their rate limit through it; switch on the outbox to keep sends until Redis is back`,
    { ambiguous: false },
  );
}

/** What every send node adds to msg.payload: the caption as sent, the reference, recovered, outbox. */
export function sentFields(sent: SendDone): Record<string, unknown> {
  const out: Record<string, unknown> = { recovered: sent.recovered };
  if (sent.caption !== undefined) out.caption = sent.caption;
  if (sent.reference !== undefined) out.reference = sent.reference;
  if (sent.outbox) out.outbox = true;
  return out;
}

/**
 * The text of a message: a string, a number or a Buffer. Anything else (an object, an array, a boolean) is
 * most likely a flow that forgot to pick the text out of its payload: refused before anything is sent.
 */
export function messageText(value: unknown, operation: string): string {
  if (value === undefined || value === null) return '';
  // Before the bytes are decoded or anything reads the text (issue 19 §6).
  const tooLarge = overContentCap('the message text', value);
  if (tooLarge !== undefined) {
    throw new GatewayError('VALIDATION', tooLarge, { operation, ambiguous: false });
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (isBytes(value)) return bytesOf(value).toString('utf8');
  throw new GatewayError('VALIDATION', `the message text must be a string, got ${kindOf(value)}`, {
    operation,
    ambiguous: false,
  });
}
