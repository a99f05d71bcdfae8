/**
 * A gateway configuration's opt-out list at work (its Opt-out tab): the list every send is checked against (the
 * send gate asks `refused`), and, with the keywords on, a first taker of the configuration's one reader of inbound
 * messages: a reply that is exactly STOP puts its sender on the list, START takes it off, HELP is marked; the
 * change is durable before the reader hands the message on, and the inbound triggers get the mark
 * (`msg.optOut = "added" | "removed" | "help"`).
 *
 * Lost list: sends are refused (CONFIG, one log line) until a person confirms it (list.ts, docs/reliability.md).
 */
import type { NodeAPI } from 'node-red';
import type { CountryCode } from 'libphonenumber-js/min';
import { GatewayError } from '../../errors';
import { safeText } from '../../text/untrusted';
import { numberKey } from '../ask/numbers';
import type { SmsgwConfigNode } from '../config/config-node';
import type {
  OptOutAnswer,
  OptOutGate,
  OptOutSnapshot,
  RefusedRecipient,
  SmsgwConfigDef,
} from '../config/types';
import { userDirOf } from '../common/user-dir';
import { sharedKey } from '../common/status';
import { INBOUND } from '../polling/queue-kinds';
import type { InboundRecord } from '../polling/inbound-queue';
import type { ListenerHandle, RecordMarks } from '../polling/queue-reader';
import { ownsReaders } from '../polling/reader-host';
import { isListKey, maskNumber, numberOfKey, type ChangeRequest, type ListLost, type OptEntry } from './book';
import { keywordOf, keywordsOf, type Keyword, type Keywords } from './keywords';
import type { OptOutList } from './list';
import { FileOptOutList } from './store-file';
import { listCsv, readCsv } from './csv';
import { coerceParams } from '../common/operations';
import { sendMessage } from '../send/send-path';
import { findOperation } from '../../catalogue';
import type { OutboxEntry } from '../../reliability/outbox-store';
import { recipientsOf, withoutRecipients } from '../send/gate-params';
import { optOutCheck, optedOutError } from '../send/opt-out';

/** The listener id of the list on the reader (stable across restarts: records read meanwhile are kept for it). */
const SEND_SMS = findOperation('send', 'SendSMS')!;

/** How long a send waits for the list to be read before it is refused. */
export const READY_WAIT_MS = 10_000;

export const optOutListenerId = (configId: string): string => `${configId}:optout`;

/** What a first taker's mark says to the listeners after it (`msg.optOut` of the inbound trigger). */
export type OptOutMark = 'added' | 'removed' | 'help';

const MARK: Readonly<Record<Keyword, OptOutMark>> = { stop: 'added', start: 'removed', help: 'help' };

/** The settings the host reads (the field rules converted them: src/nodes/fields/config.ts). */
export interface OptOutSettings {
  keywords: boolean;
  intervalMs: number;
  stop: string;
  start: string;
  help: string;
  /** Answer a keyword with a text (at most one per number per day). */
  answer: boolean;
  /** The answers; blank: the default text in the runtime's language. */
  texts: Record<Keyword, string>;
  /** The answers' sender; blank: the gateway's default. */
  sender: string;
}

export function optOutSettings(values: Record<string, unknown>): OptOutSettings {
  return {
    keywords: values.optOutKeywords !== false,
    intervalMs: Number(values.optOutInterval ?? 60) * 1000,
    stop: String(values.optOutStop ?? ''),
    start: String(values.optOutStart ?? ''),
    help: String(values.optOutHelp ?? ''),
    answer: values.optOutAnswer === true,
    texts: {
      stop: String(values.optOutStopText ?? ''),
      start: String(values.optOutStartText ?? ''),
      help: String(values.optOutHelpText ?? ''),
    },
    sender: String(values.optOutSender ?? ''),
  };
}

const pick = (r: InboundRecord, ...names: string[]): unknown =>
  names.map((n) => r[n]).find((v) => v !== undefined);

export class OptOutHost implements OptOutGate {
  readonly list: OptOutList;
  private readonly keywords: Keywords;
  private readonly country: CountryCode | undefined;
  private readonly skipped = new Map<string, string[]>();
  private handle: ListenerHandle | undefined;
  private failure: GatewayError | undefined;
  private readonly settings: OptOutSettings;
  private readonly stopping = new AbortController();
  private answering: Promise<void> = Promise.resolve();

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: SmsgwConfigNode,
    def: SmsgwConfigDef,
    settings: OptOutSettings,
    list?: OptOutList,
  ) {
    this.country = (def.defaultCountry?.trim() || undefined) as CountryCode | undefined;
    this.settings = settings;
    this.keywords = keywordsOf(settings.stop, settings.start, settings.help);
    this.list =
      list ??
      new FileOptOutList(userDirOf(RED), node.id, {
        onProblem: (p) => {
          if (p) node.warn(RED._(sharedKey('optOut.storeProblem'), { where: p.file, message: p.code }));
        },
      });
    this.list.onLost((lost) => this.tellLost(lost));
    this.list.ready().catch((e: unknown) => {
      this.failure = new GatewayError('CONFIG', `the opt-out list cannot be read: ${String(e)}`);
      node.error(this.failure.message);
    });
    if (settings.keywords && ownsReaders(node)) {
      this.handle = node.queueReader(INBOUND).listen({
        id: optOutListenerId(node.id),
        first: true,
        intervalMs: settings.intervalMs,
        take: (records) => this.take(records),
      });
    }
  }

  /** A person confirmed a lost list (the editor): sends go out again. */
  async confirm(by: string): Promise<boolean> {
    const done = await this.list.confirm(by);
    if (done) this.node.log(this.RED._(sharedKey('optOut.confirmed'), { by }));
    return done !== undefined;
  }

  async snapshot(): Promise<OptOutSnapshot> {
    if (!this.list.opened) await this.list.ready().catch(() => undefined);
    const lost = this.list.book.lost;
    const problem = this.failure?.message ?? this.list.problem();
    return {
      enabled: true,
      count: this.list.book.count,
      shared: this.list.shared,
      ...(lost ? { lost: { why: lost.why, where: lost.where, since: lost.since } } : {}),
      ...(problem ? { problem } : {}),
    };
  }

  async exportCsv(): Promise<string> {
    if (!this.list.opened) await this.opened();
    return listCsv(this.list.book.entries());
  }

  async importCsv(text: string, by: string): Promise<number> {
    if (!this.list.opened) await this.opened();
    const requests = readCsv(text, (n) => this.keyOf(n), Date.now(), by);
    await this.list.change(requests);
    this.node.log(this.RED._(sharedKey('optOut.imported'), { count: requests.length, by }));
    return requests.length;
  }

  async flowChange(numbers: readonly string[], out: boolean, by: string): Promise<OptOutAnswer[]> {
    const keys = this.listKeys(numbers);
    if (!this.list.opened) await this.opened();
    // Only real changes: a number already in that state keeps its entry (and its "since").
    const requests: ChangeRequest[] = [];
    const wanted = new Set<string>();
    for (const key of keys) {
      if (wanted.has(key) || (this.list.book.get(key)?.out === true) === out) continue;
      wanted.add(key);
      requests.push({ key, out, source: 'flow', by });
    }
    if (requests.length > 0) {
      const changes = await this.list.change(requests);
      this.logChanges(changes);
    }
    return numbers.map((number, i) => ({
      ...this.answerOf(number, keys[i]!),
      changed: wanted.has(keys[i]!),
    }));
  }

  async check(numbers: readonly string[]): Promise<OptOutAnswer[]> {
    const keys = this.listKeys(numbers);
    // The same door as a send: a list not read, or lost and not confirmed, gives no answer.
    await this.refused([]);
    return numbers.map((number, i) => this.answerOf(number, keys[i]!));
  }

  /** The keys of a flow's numbers, or VALIDATION naming the first that is no phone number (nothing changed). */
  private listKeys(numbers: readonly string[]): string[] {
    return numbers.map((n) => {
      const key = this.keyOf(n);
      if (!isListKey(key))
        throw new GatewayError('VALIDATION', `"${safeText(n).slice(0, 40)}" is no phone number`, {
          ambiguous: false,
        });
      return key;
    });
  }

  private answerOf(number: string, key: string): OptOutAnswer {
    const own = this.list.book.get(key);
    const refusing: OptEntry | undefined = this.list.book.refusing(key);
    const entry = refusing ?? own;
    return {
      number,
      key: numberOfKey(key),
      optedOut: refusing !== undefined,
      ...(entry ? { since: new Date(entry.since).toISOString(), source: entry.source } : {}),
    };
  }

  private logChanges(changes: readonly { key: string; action: string; source: string }[]): void {
    for (const c of changes)
      this.node.log(
        this.RED._(sharedKey('optOut.changed'), {
          number: safeText(maskNumber(c.key)),
          action: c.action,
          source: c.source,
        }),
      );
  }

  private tellLost(lost: ListLost): void {
    // One line naming the cause; every send is refused until a person confirms the list.
    this.node.error(this.RED._(sharedKey('optOut.lost'), { why: lost.why, where: lost.where }));
  }

  private keyOf(number: string): string {
    return numberKey(number, this.country);
  }

  async refused(recipients: readonly string[]): Promise<RefusedRecipient[]> {
    if (this.failure) throw this.failure;
    if (!this.list.opened) await this.opened();
    const lost = this.list.book.lost;
    if (lost)
      throw new GatewayError(
        'CONFIG',
        `the opt-out list was lost (${lost.why}): sends are refused until a person confirms the list in the gateway configuration's Opt-out tab`,
        { ambiguous: false },
      );
    const out: RefusedRecipient[] = [];
    recipients.forEach((r, index) => {
      const key = this.keyOf(r);
      if (this.list.book.refusing(key)) out.push({ index, shown: maskNumber(key) });
    });
    return out;
  }

  /**
   * The list read, waited for at most READY_WAIT_MS (a send right after the deploy); longer (the file cannot be
   * read, Redis cannot be reached): refused, loudly, rather than sent unchecked.
   */
  private async opened(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), READY_WAIT_MS);
    });
    const r = await Promise.race([this.list.ready().then(() => 'read' as const), late]).finally(() =>
      clearTimeout(timer),
    );
    if (r === 'late')
      throw new GatewayError(
        this.list.shared ? 'NETWORK' : 'CONFIG',
        `the opt-out list is not read yet (${this.list.problem() ?? this.list.where}): not sent unchecked`,
        { ambiguous: false },
      );
  }

  /** An outbox attempt left these out (they went on the list while the message waited); told once. */
  noteSkipped(reference: string, numbers: string[]): void {
    this.skipped.set(reference, numbers);
  }

  /**
   * An attempt of an outbox entry (the config node's ReliabilityHost.attemptCheck): recipients that went on the
   * list while the message waited are left out (told to the send with skippedAtSend), none left: OPTED_OUT.
   */
  async checkAttempt(entry: Readonly<OutboxEntry>): Promise<Readonly<OutboxEntry>> {
    const op = findOperation(entry.service, entry.operation);
    const recipients = recipientsOf(entry.params);
    if (!op || recipients.length === 0) return entry;
    const refused = await optOutCheck({ config: this.node, op, recipients });
    if (refused.length === 0) return entry;
    if (refused.length === recipients.length) throw optedOutError(op, refused, recipients);
    this.noteSkipped(
      entry.reference,
      refused.map((r) => recipients[r.index]!),
    );
    return { ...entry, params: withoutRecipients(entry.params, new Set(refused.map((r) => r.index))) };
  }

  skippedAtSend(reference: string): string[] | undefined {
    const s = this.skipped.get(reference);
    this.skipped.delete(reference);
    return s;
  }

  /**
   * The reader's records, before any trigger gets them: each reply that is exactly a keyword changes the list
   * (all of one read in one durable change) and is marked. A change that cannot be made durable rejects: the
   * reader keeps the records and offers them again, and holds them back from the triggers meanwhile.
   */
  async take(records: readonly InboundRecord[]): Promise<(RecordMarks | undefined)[]> {
    const marks: (RecordMarks | undefined)[] = [];
    const requests: ChangeRequest[] = [];
    const answers: { key: string; to: string; keyword: Keyword }[] = [];
    for (const r of records) {
      const keyword = keywordOf(pick(r, 'Text', 'message', 'Message', 'text'), this.keywords);
      const sender = pick(r, 'Sender', 'sender');
      const key = typeof sender === 'string' ? this.keyOf(sender) : '';
      if (!keyword || !isListKey(key)) {
        marks.push(undefined);
        continue;
      }
      marks.push({ optOut: MARK[keyword] });
      answers.push({ key, to: String(sender), keyword });
      if (keyword !== 'help') requests.push({ key, out: keyword === 'stop', source: 'reply', by: 'reply' });
    }
    if (requests.length > 0) this.logChanges(await this.list.change(requests));
    // After the change is durable, outside the reader's turn (a send takes its time).
    if (this.settings.answer && answers.length > 0) {
      const after = this.answering.then(() => this.answer(answers));
      this.answering = after.catch(() => undefined);
    }
    return marks;
  }

  /**
   * The answers to keywords, at most one per number per day (noted durably before it is sent: a send that fails
   * is not tried again that day, never sent twice). Through the send gate, exempt from the list: the STOP
   * confirmation goes to a number that is on it now, and HELP is answered whoever asks.
   */
  private async answer(answers: readonly { key: string; to: string; keyword: Keyword }[]): Promise<void> {
    for (const a of answers) {
      if (this.stopping.signal.aborted) return;
      try {
        if (!(await this.list.claimAnswer(a.key))) continue;
        const text = this.settings.texts[a.keyword] || this.RED._(sharedKey(`optOut.answer.${a.keyword}`));
        const params = coerceParams(SEND_SMS, {
          Caption: 'opt-out',
          // Blank: the gateway's default sender (as the ask node sends it).
          Sender: this.settings.sender,
          Recipient: [a.to],
          SMSText: text,
          SmsTyp: 'Standard',
          SendDate: null,
        });
        await sendMessage(this.node, SEND_SMS, params, this.stopping.signal, {
          exempt: true,
          origin: this.node.id,
        });
      } catch (e) {
        this.node.warn(
          this.RED._(sharedKey('optOut.answerFailed'), {
            number: maskNumber(a.key),
            message: safeText(e instanceof Error ? e.message : String(e)),
          }),
        );
      }
    }
  }

  async close(removed: boolean): Promise<void> {
    this.stopping.abort();
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close(removed).catch(() => undefined);
    await this.list.close();
  }
}
