/**
 * smsgw-ask: asks an on-call list by SMS and waits for a reply.
 * In: the question (msg.payload by default) and the on-call list (a typedInput: numbers as the send SMS node takes
 * them). `msg.ask.cancel` (true with msg.topic or msg.ask.id, or the ask id itself) closes open questions instead;
 * `msg.ask.resolve`, addressed the same way, closes them as resolved (output 3, the people asked told).
 * Out 1 (answered): the msg that asked, with msg.ask = { answer, from, step, afterMs, jobId, id, code }.
 * Out 2 (unanswered after the last step): the same, answer and from empty.
 * Out 3 (resolved): the same with status "resolved", resolution, resolvedBy.
 * The questions of every ask node of a gateway configuration live in its hub (ask/hub.ts): codes, replies, steps,
 * restarts and Redis coordination are handled there; this file reads the node's settings and the msg.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { GatewayError } from '../errors';
import { newQuestionId } from './ask/engine';
import { AskHub } from './ask/hub';
import { numberKey } from './ask/numbers';
import { readerReplies } from './ask/reader-replies';
import type { AskSettings, Question, Tell, TellResolve } from './ask/question';
import {
  clockTime,
  resolveTexts,
  stepText,
  tellText,
  cancelText,
  resolvedText,
  updateText,
} from './ask/texts';
import { NodeGatewayError, toGatewayError } from './common/errors';
import { overridesOf } from './common/override-table';
import { fieldOf, toRecipients, toText } from './common/props';
import { failed, idle, sharedKey, warn } from './common/status';
import { deployFields, msgValue, settingsOf } from './common/fields';
import { fieldsOf } from './fields';
import { answerWords } from './fields/rule';
import { storeStatus } from './common/state';
import { attachConfig, requireConfig } from './config/config';
import { decodePending, encodePending } from './polling/pending';
import { messageText } from './send/send-path';

interface AskDef extends NodeDef {
  gateway: string;
  question?: string;
  questionType?: string;
  numbers?: string;
  numbersType?: string;
  wait?: number | string;
  waitUnit?: string;
  rounds?: number | string;
  ack?: string;
  pass?: string;
  resolve?: string;
  tell?: string;
  tellResolve?: string;
  resolveWithin?: number | string;
  tellCancel?: boolean | string;
  tellLate?: boolean | string;
  replyLimit?: number | string;
  replyWindow?: number | string;
  critical?: boolean | string;
  smsType?: string;
  sender?: string;
  senderType?: string;
  caption?: string;
  captionType?: string;
  hint?: string;
  passedText?: string;
  passedByText?: string;
  tellText?: string;
  cancelText?: string;
  resolvedText?: string;
  updateText?: string;
  dedupe?: string;
  quiet?: number | string;
  tellUpdate?: boolean | string;
  interval?: number | string;
  [field: string]: unknown;
}

/** Msgs kept in memory for their questions' outputs (beyond, the copy kept with the question is used). */
const MAX_ORIGINALS = 1000;
/** Shortest wait per step (the triggers poll at most once a second; the help says so). */
const MIN_MS = 1000;
/** The msg kept with a question (for outputs after a restart) is at most this big; beyond, payload and topic. */
const MAX_KEPT_MSG = 64 * 1024;

/** The typedInput fields' defaults (the dialog's): name, value, type. */
const TYPED_DEFAULTS: readonly (readonly [string, string, string])[] = [
  ['question', 'payload', 'msg'],
  ['numbers', '', 'str'],
  ['sender', '', 'str'],
  ['caption', 'topic', 'msg'],
];

/** ms per unit of the wait (its rule's, src/nodes/fields/ask.ts). */
const unitMs = (unit: unknown): number => {
  const timer = fieldsOf('smsgw-ask').wait!.timer as { ms: Readonly<Record<string, number>> };
  return timer.ms[String(unit)]!;
};

/**
 * The node's settings that do not depend on the msg, each judged by its rule (src/nodes/fields/ask.ts; a refused
 * one throws the CONFIG error naming every refused field: the node checks them at deploy first).
 */
export function nodeSettings(
  def: AskDef,
): Omit<AskSettings, 'priority' | 'sender' | 'caption'> & { intervalMs: number; dedupe: string } {
  const v = settingsOf('smsgw-ask', def);
  const ack = answerWords(v.ack);
  const pass = answerWords(v.pass);
  const resolve = answerWords(v.resolve);
  const text = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
  return {
    // At least a second per step, as the triggers poll at most once a second.
    waitMs: Math.max(MIN_MS, Math.round((v.wait as number) * unitMs(v.waitUnit))),
    rounds: v.rounds as number,
    ack,
    pass,
    resolve,
    tell: v.tell as Tell,
    tellResolve: v.tellResolve as TellResolve,
    resolveWithinMs: (v.resolveWithin as number) * 3_600_000,
    quietMs: (v.quiet as number) * 60_000,
    tellUpdate: v.tellUpdate === true,
    tellCancel: v.tellCancel === true,
    tellLate: v.tellLate === true,
    replyLimit: v.replyLimit as number,
    replyWindowMs: (v.replyWindow as number) * 60_000,
    critical: v.critical === true,
    smsType: v.smsType as string,
    texts: resolveTexts(
      {
        hint: text(v.hint),
        passed: text(v.passedText),
        passedBy: text(v.passedByText),
        tell: text(v.tellText),
        cancel: text(v.cancelText),
        resolved: text(v.resolvedText),
        update: text(v.updateText),
      },
      ack,
      pass,
      resolve,
    ),
    intervalMs: (v.interval as number) * 1000,
    dedupe:
      typeof v.dedupe === 'string' && v.dedupe.trim() !== '' ? v.dedupe.trim().replace(/^msg\./, '') : '',
  };
}

/**
 * The msg as kept with its question: JSON-safe; a msg that cannot be kept whole keeps payload and topic. An
 * HTTP-in msg's req and res (a live request, never JSON) are left out quietly: they cannot outlive the process.
 */
function keptMsg(msg: NodeMessage): { kept: Record<string, unknown>; whole: boolean } {
  const { req: _req, res: _res, ...rest } = msg as Record<string, unknown>;
  try {
    const [kept] = encodePending([rest as NodeMessage]) as [Record<string, unknown>];
    if (JSON.stringify(kept).length <= MAX_KEPT_MSG) return { kept, whole: true };
  } catch {
    // circular or otherwise not JSON: below
  }
  const [kept] = encodePending([{ payload: rest.payload, topic: msg.topic } as NodeMessage]) as [
    Record<string, unknown>,
  ];
  return { kept: JSON.stringify(kept).length <= MAX_KEPT_MSG ? kept : { topic: msg.topic }, whole: false };
}

/** A dedupe key's value as compared: text or a number (other values, and none: no dedupe for that msg). */
function dedupeKey(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v.slice(0, 200);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** msg.ask.cancel (or msg.ask.resolve): undefined (not one), or what it names. */
function cancelOf(
  msg: NodeMessage,
  what: 'cancel' | 'resolve' = 'cancel',
): { id?: string; topic?: string } | 'bad' | undefined {
  const ask = (msg as Record<string, unknown>).ask;
  if (typeof ask !== 'object' || ask === null) return undefined;
  const cancel = (ask as Record<string, unknown>)[what];
  if (cancel === undefined || cancel === null || cancel === false) return undefined;
  if (typeof cancel === 'string' && cancel.trim() !== '') return { id: cancel.trim() };
  const id = (ask as Record<string, unknown>).id;
  if (typeof id === 'string' && id !== '') return { id };
  if (typeof msg.topic === 'string' && msg.topic !== '') return { topic: msg.topic };
  return 'bad';
}

export default (RED: NodeAPI): void => {
  function SmsgwAsk(this: Node, def: AskDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/ask.ts), all at once: a refused one (a negative wait, an
    // empty on-call list) and the node only says why, before any question is asked.
    if (deployFields(RED, this, 'smsgw-ask', def)) start(this, def);
  }

  function start(node: Node, def: AskDef): void {
    const config = attachConfig(RED, node, def.gateway);
    const settings = nodeSettings(def);
    // A node written by hand or imported without a field takes the dialog's default.
    const d: Record<string, unknown> = { ...def };
    for (const [name, value, type] of TYPED_DEFAULTS)
      if (d[name] === undefined) {
        d[name] = value;
        d[`${name}Type`] = type;
      }
    const overrides = overridesOf(RED, node, 'smsgw-ask', d);
    /** The msgs that asked, while their questions are open here (an output after a restart uses the kept copy). */
    const originals = new Map<string, NodeMessage>();
    const hub = config ? AskHub.of(RED, config, readerReplies(config)) : undefined;
    let shown: NodeStatus | undefined;

    const status = (): void => {
      if (!hub) return;
      const s = statusOf();
      if (shown && s.fill === shown.fill && s.shape === shown.shape && s.text === shown.text) return;
      shown = s;
      node.status(s);
    };
    const statusOf = (): NodeStatus => {
      // The questions cannot be saved: nothing is sent or output until they can.
      const store = hub!.saveProblem;
      if (store) return storeStatus(RED, store);
      const problem = hub!.problem();
      if (problem) return failed(RED._(sharedKey('status.redisDown'), { message: problem.split('\n')[0]! }));
      if (hub!.coordinated && !hub!.holding) return idle(RED._('smsgw-ask.status.standby'));
      const open = hub!.engine.open(node.id);
      if (hub!.pollError && open.length > 0)
        return failed(
          RED._('smsgw-ask.status.readFailed', { message: hub!.pollError.split('\n')[0]!.slice(0, 40) }),
        );
      if (open.length === 0) return idle(RED._('smsgw-ask.status.none'));
      if (open.length === 1) {
        const q = open[0]!;
        return warn(
          RED._(q.updates ? 'smsgw-ask.status.oneUpdated' : 'smsgw-ask.status.one', {
            updates: q.updates ?? 0,
            code: q.code ?? '-',
            step: Math.max(1, q.step + 1),
            steps: q.numbers.length * q.settings.rounds,
            to: q.numbers[Math.max(0, q.step) % q.numbers.length]!,
          }),
        );
      }
      const codes = open.map((q) => q.code ?? '-').join(', ');
      return warn(
        RED._('smsgw-ask.status.many', {
          count: open.length,
          codes: codes.length > 30 ? `${codes.slice(0, 29)}…` : codes,
        }),
      );
    };

    const resultMsg = (q: Question): NodeMessage => {
      // Updated by a later msg with its dedupe key: that msg (as kept), not the first.
      const first = q.updates ? undefined : originals.get(q.id);
      const msg = first ?? (decodePending([q.msg])[0] as NodeMessage);
      originals.delete(q.id);
      (msg as Record<string, unknown>).ask = { ...q.result, id: q.id, code: q.code };
      return msg;
    };

    hub?.register(node.id, {
      intervalMs: settings.intervalMs,
      output: (q) => {
        const msg = resultMsg(q);
        if (q.state === 'resolved') {
          const r = q.resolution!;
          const ask = (msg as Record<string, unknown>).ask as Record<string, unknown>;
          // Not acknowledged before: no answer, the step it had reached.
          if (!q.result)
            Object.assign(ask, { answer: '', from: '', step: Math.max(1, q.step + 1), jobId: undefined });
          Object.assign(ask, {
            status: 'resolved',
            resolution: r.text,
            resolvedBy: r.by,
            afterMs: q.result?.afterMs ?? r.at - q.createdAt,
            resolvedAfterMs: r.at - q.createdAt,
          });
          node.send([null, null, msg]);
          return;
        }
        node.send(q.state === 'answered' ? [msg, null, null] : [null, msg, null]);
      },
      failed: (q, sms, err) => {
        const msg = RED.util.cloneMessage(originals.get(q.id) ?? (decodePending([q.msg])[0] as NodeMessage));
        (msg as Record<string, unknown>).ask = {
          id: q.id,
          code: q.code,
          step: (sms.step ?? q.step) + 1,
          to: sms.to,
          kind: sms.kind,
        };
        node.error(new NodeGatewayError(toGatewayError(err)), msg);
      },
      changed: status,
      quiet: (q, until) =>
        node.warn(
          RED._('smsgw-ask.errors.quiet', { key: (q.dedupe ?? '').slice(0, 60), until: clockTime(until) }),
        ),
      node,
    });
    status();

    node.on('input', (msg: NodeMessageInFlow, _send, done) => {
      handle(msg).then(
        () => {
          status();
          done();
        },
        (err: unknown) => done(new NodeGatewayError(toGatewayError(err))),
      );
    });

    const handle = async (msg: NodeMessageInFlow): Promise<void> => {
      const cfg = requireConfig(config);
      const problem = hub!.problem();
      if (problem) throw new GatewayError('CONFIG', `questions cannot be kept or answered now: ${problem}`);
      const cancel = cancelOf(msg);
      if (cancel === 'bad')
        throw new GatewayError(
          'VALIDATION',
          'msg.ask.cancel needs msg.topic or msg.ask.id to name the questions to close',
        );
      if (cancel) {
        await hub!.cancel({ key: newQuestionId(), node: node.id, ...cancel, at: Date.now() });
        return;
      }
      const get = (name: string): Promise<unknown> => fieldOf(RED, node, d, msg, name);
      const resolve = cancelOf(msg, 'resolve');
      if (resolve === 'bad')
        throw new GatewayError(
          'VALIDATION',
          'msg.ask.resolve needs msg.topic or msg.ask.id to name the questions to resolve',
        );
      if (resolve) {
        // The resolving msg's text (in the Question property); none: the question's own.
        const text = messageText((await get('question')) ?? '', 'SendSMS').trim();
        const hits = await hub!.cancel({
          key: newQuestionId(),
          node: node.id,
          ...resolve,
          at: Date.now(),
          resolve: { text },
        });
        if (hits === 0)
          throw new GatewayError(
            'VALIDATION',
            `nothing to resolve: no open question ${resolve.id !== undefined ? `with ask id ${resolve.id}` : `with topic "${resolve.topic!}"`} (unknown or closed already); nothing was sent`,
          );
        return;
      }
      const s = settings;
      // Judged by the fields' rules for this msg: an empty question or list is refused as it is at deploy.
      const question = messageText(await get('question'), 'SendSMS').trim();
      msgValue('smsgw-ask', 'question', question);
      const list = toRecipients(await get('numbers'));
      msgValue('smsgw-ask', 'numbers', list);
      const caption = toText(await get('caption')) ?? '';
      const sender = toText(await get('sender')) ?? '';
      const priority = overrides.msg(msg, 'priority');
      const askSettings: AskSettings = { ...s, caption, sender, ...(priority ? { priority } : {}) };
      const client = cfg.getClient();
      // Each number and the longest texts checked now, as the send would: a bad one is refused before any is sent.
      const now = Date.now();
      const draft: Question = {
        id: newQuestionId(),
        node: node.id,
        topic: typeof msg.topic === 'string' ? msg.topic : undefined,
        code: 'zz',
        question,
        numbers: list,
        keys: [],
        settings: askSettings,
        msg: {},
        createdAt: now,
        state: 'new',
        step: -1,
        stepAt: now,
        sms: [],
      };
      const longest = list.reduce((a, b) => (b.length > a.length ? b : a), '');
      const texts = [stepText(draft, 0, undefined)];
      if (list.length * s.rounds > 1)
        texts.push(
          stepText(draft, 1, { why: 'wait', from: longest }),
          stepText(draft, 1, { why: 'pass', from: longest }),
        );
      if (s.tell !== 'none') texts.push(tellText(draft, longest, s.ack[0] ?? question));
      if (s.tellCancel) texts.push(cancelText(draft));
      if (s.tellUpdate) texts.push(updateText(draft));
      texts.push(resolvedText(draft, '', longest));
      const numbers = list.map((n) => {
        let sent = n;
        for (const SMSText of texts) {
          const v = client.checkParams('send', 'SendSMS', {
            Caption: caption,
            Sender: sender,
            Recipient: [n],
            SMSText,
            SmsTyp: s.smsType,
            SendDate: null,
          });
          const r = (v.Recipient as unknown[] | undefined)?.[0];
          if (typeof r === 'string') sent = r;
        }
        return sent;
      });
      const country = client.recipientRules?.defaultCountry;
      const { kept, whole } = keptMsg(msg);
      const key = s.dedupe === '' ? undefined : dedupeKey(RED.util.getMessageProperty(msg, s.dedupe));
      if (!whole) node.warn(RED._('smsgw-ask.errors.msgNotKept', { max: MAX_KEPT_MSG / 1024 }));
      const q: Question = {
        ...draft,
        code: undefined,
        numbers,
        keys: numbers.map((n) => numberKey(n, country)),
        msg: kept,
        ...(key !== undefined ? { dedupe: key } : {}),
      };
      originals.set(q.id, msg);
      // Questions another instance closed never come back here: the oldest kept msgs go first.
      if (originals.size > MAX_ORIGINALS) originals.delete(originals.keys().next().value!);
      try {
        await hub!.ask(q);
      } catch (e) {
        originals.delete(q.id);
        throw e;
      }
    };

    node.on('close', (removed: boolean, done: () => void) => {
      void (hub ? hub.unregister(node.id, removed) : Promise.resolve())
        .catch(() => undefined)
        .then(() => {
          node.status({});
          done();
        });
    });
  }

  RED.nodes.registerType('smsgw-ask', SmsgwAsk);
};
