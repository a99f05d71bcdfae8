/**
 * The spending guard of one config node (tab "Budget"; docs/reliability.md, "Spending guard"): its settings,
 * where its counts live (a file in the user directory, or Redis when the config coordinates instances), the
 * status it adds to every send node of the config, one log line per warning, and the smsgw-budget nodes that turn its
 * warnings into messages. Off (nothing built, nothing counted) while no limit is set.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { GatewayError } from '../../errors';
import { settingsOf } from '../common/fields';
import {
  Budget,
  CONFIRM_HOW,
  type BudgetEvent,
  type BudgetSettings,
  type SpendView,
  type WindowState,
} from '../../reliability/budget';
import { budgetSender } from '../../reliability/budget-sender';
import { FileLedger } from '../../reliability/budget-file';
import type { BudgetLedger, CountsConfirmed, CountsLost } from '../../reliability/budget-ledger';
import type { StoreProblem } from '../../store';
import { reportDamage, reportStoreProblem, storeError } from '../common/state';
import type { BudgetWindow } from '../../reliability/budget-windows';
import type { OutboxSender } from '../../reliability/outbox';
import { SharedBudgetLedger } from '../../coordination/shared-budget';
import { failed, sharedKey, warn } from '../common/status';
import type { CoordinationHost } from './coordination-host';
import type { SmsgwConfigDef } from './types';
import { userDirOf } from '../common/user-dir';

/**
 * The Budget tab's settings, each judged by its rule (src/nodes/fields/config.ts: whole numbers from 0, blank =
 * no limit; a refused one throws the CONFIG error naming every refused field); undefined when no limit is set
 * (the guard is off).
 */
export function budgetOf(def: SmsgwConfigDef): BudgetSettings | undefined {
  const v = settingsOf('smsgw-config', def);
  const limits: Partial<Record<BudgetWindow, number>> = {};
  for (const [w, field] of [
    ['hour', 'budgetHour'],
    ['day', 'budgetDay'],
    ['month', 'budgetMonth'],
  ] as const) {
    const limit = v[field] as number | undefined;
    if (limit !== undefined) limits[w] = limit;
  }
  if (Object.keys(limits).length === 0) return undefined;
  return {
    limits,
    warnPercent: v.budgetWarn as number,
    reserve: v.budgetReserve as number,
    hold: v.budgetOver === 'hold',
  };
}

/** A window name as the status and the log show it. */
const WINDOW_KEYS: Record<BudgetWindow, string> = {
  hour: sharedKey('budget.hour'),
  day: sharedKey('budget.day'),
  month: sharedKey('budget.month'),
};
const windowKey = (w: BudgetWindow): string => WINDOW_KEYS[w];

/** "23:59" for a reset within a day, else the date. */
function shortTime(t: number, now: number): string {
  const d = new Date(t);
  const two = (n: number): string => String(n).padStart(2, '0');
  if (t - now < 24 * 3_600_000) return `${two(d.getHours())}:${two(d.getMinutes())}`;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

export type BudgetListener = (event: BudgetEvent) => void;

/** The counts were lost, or a person confirmed them after a loss. */
export type LossEvent =
  { type: 'lost'; lost: CountsLost } | { type: 'confirmed'; confirmed: CountsConfirmed };
export type LossListener = (event: LossEvent) => void;

export class BudgetHost {
  readonly settings: BudgetSettings;
  readonly shared: boolean;
  private readonly ready: Promise<Budget | undefined>;
  private readonly listeners = new Set<BudgetListener>();
  private readonly lossListeners = new Set<LossListener>();
  private status: NodeStatus | undefined;
  private problem: string | undefined;
  private current: Budget | undefined;
  private ledger: BudgetLedger | undefined;
  /** The count file cannot be read or written now. */
  private storeTrouble: StoreProblem | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    def: SmsgwConfigDef,
    settings: BudgetSettings,
    coordination: CoordinationHost | undefined,
    /** Called when the status the nodes show may have changed. */
    private readonly changed: () => void,
    outbox: boolean,
  ) {
    this.settings = settings;
    const link = coordination?.link;
    this.shared = link !== undefined;
    // Without a user directory: in memory only (the config node says so once, for all its features).
    if (settings.hold && !outbox) node.warn(RED._(sharedKey('budget.holdNeedsOutbox')));
    const ledger: Promise<BudgetLedger> = link
      ? Promise.resolve(new SharedBudgetLedger(link, coordination!.key('budget'), coordination!.keySpace))
      : FileLedger.open(userDirOf(RED), def.id, {
          onDamage: (d) => reportDamage(RED, node, d),
          onProblem: (p) => {
            const last = this.storeTrouble;
            this.storeTrouble = p;
            reportStoreProblem(RED, node, p, last);
            this.changed();
          },
        });
    this.ready = ledger.then(
      (l) => {
        this.ledger = l;
        const budget = new Budget(settings, l);
        this.current = budget;
        budget.on('event', (e) => this.onEvent(e));
        budget.on('change', () => this.restatus(budget));
        budget.on('lost', (lost) => this.onLoss({ type: 'lost', lost }));
        budget.on('confirmed', (confirmed) => this.onLoss({ type: 'confirmed', confirmed }));
        // The count so far (a restart, another instance), for the status and the editor; a loss found at open.
        void budget.refresh().catch(() => undefined);
        return budget;
      },
      (e: unknown) => {
        // The counts cannot be kept: sends are refused (CONFIG) rather than sent unguarded.
        this.problem = e instanceof Error ? e.message : String(e);
        node.error(RED._(sharedKey('budget.openFailed'), { message: this.problem }));
        return undefined;
      },
    );
  }

  /** The guard once its counts are open; rejects (CONFIG) when they could not be opened. */
  async budget(): Promise<Budget> {
    // The count file cannot be read (yet): refused now, not held until it can (the store tries again).
    if (!this.current && this.storeTrouble) throw storeError(this.storeTrouble);
    const b = await this.ready;
    if (!b)
      throw new GatewayError(
        'CONFIG',
        `not sent: the spending guard cannot keep its counts (${this.problem})`,
        {
          ambiguous: false,
        },
      );
    return b;
  }

  /** What every send node of the config shows when a limit is near or reached (undefined: nothing to say). */
  nodeStatus(): NodeStatus | undefined {
    return this.status;
  }

  /** Each limited window as last seen (empty until the counts are open). */
  windowsNow(): WindowState[] {
    return this.current?.windowsNow() ?? [];
  }

  /** The smsgw-budget nodes listen here; returns the unsubscribe function. */
  subscribe(listener: BudgetListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Losses of the counts and their confirmations (the smsgw-budget nodes, the outbox); returns the unsubscribe. */
  subscribeLoss(listener: LossListener): () => void {
    this.lossListeners.add(listener);
    return () => this.lossListeners.delete(listener);
  }

  /** The counts were lost and nobody has confirmed them yet, or undefined. */
  get lost(): CountsLost | undefined {
    return this.current?.lost;
  }

  /**
   * A person confirms the counts after a loss (the Budget tab's button, a msg to a budget node): counted and
   * checked again from the counts as they are now. Logged; durable (a restart does not ask again).
   */
  async confirm(by: string): Promise<CountsConfirmed | undefined> {
    const b = await this.budget();
    if (!b.lost) return undefined;
    return b.confirmLost(by);
  }

  private onLoss(e: LossEvent): void {
    if (e.type === 'lost')
      this.node.error(
        this.RED._(sharedKey('budget.lost'), {
          why: e.lost.why,
          where: e.lost.where,
          how: CONFIRM_HOW,
        }),
      );
    else this.node.log(this.RED._(sharedKey('budget.confirmed'), { by: e.confirmed.by }));
    if (this.current) this.restatus(this.current);
    for (const l of this.lossListeners) {
      try {
        l(e);
      } catch {
        // a listener must not break the guard
      }
    }
  }

  /** The windows for the editor and the budget nodes (fresh from the ledger). */
  async snapshot(): Promise<Record<string, unknown>> {
    const b = await this.ready;
    const windows = b ? await b.windows(true) : [];
    return {
      enabled: true,
      shared: this.shared,
      hold: this.settings.hold === true,
      reserve: this.settings.reserve ?? 0,
      warnPercent: this.settings.warnPercent ?? 80,
      problem: this.problem ?? (this.storeTrouble ? storeError(this.storeTrouble).message : undefined),
      ...(b?.lost
        ? { lost: { ...b.lost, since: new Date(b.lost.since || Date.now()).toISOString(), how: CONFIRM_HOW } }
        : {}),
      windows: windows.map((w) => ({ ...w, resetsAt: new Date(w.resetsAt).toISOString() })),
    };
  }

  /** The panel's Spend section: history, windows and reserve (undefined until the counts are open). */
  async spend(): Promise<SpendView | undefined> {
    const b = await this.ready;
    return b?.spend();
  }

  /** The outbox's sender with the guard in front (reliability/budget-sender.ts). */
  guardedSender(send: OutboxSender): OutboxSender {
    return budgetSender(() => this.budget(), send);
  }

  /** Entries removed from the outbox unsent: their counts go back. */
  released(ids: readonly string[]): void {
    void this.ready.then((b) => {
      for (const id of ids) b?.settle(id, 'notSent');
    });
  }

  async close(removed: boolean): Promise<void> {
    const b = await this.ready;
    await b?.close();
    this.listeners.clear();
    this.lossListeners.clear();
    // A deleted config node takes its counts along, off the manifest too (with Redis they expire on their own).
    if (removed && this.ledger instanceof FileLedger) await this.ledger.remove().catch(() => undefined);
  }

  private onEvent(e: BudgetEvent): void {
    const text = this.RED._(sharedKey(e.event === 'warning' ? 'budget.warning' : 'budget.limit'), {
      window: this.RED._(windowKey(e.window)),
      count: e.count,
      limit: e.limit,
      percent: e.percent,
      resets: new Date(e.resetsAt).toLocaleString(),
    });
    // One line in the log; the flow hears it from the smsgw-budget nodes (a refused send is an error anyway).
    this.node.log(text);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a listener must not break the guard
      }
    }
  }

  private restatus(budget: Budget): void {
    const now = Date.now();
    let worst: { level: number; status: NodeStatus } | undefined;
    // Counts lost: every send node of the config says so until a person confirms.
    if (budget.lost) worst = { level: 3, status: failed(this.RED._(sharedKey('budget.statusLost'))) };
    for (const w of budget.windowsNow()) {
      const reached = w.count >= w.limit;
      const warned = w.warnAt !== undefined && w.count >= w.warnAt;
      if (!reached && !warned) continue;
      const level = reached ? 2 : 1;
      if (worst && worst.level >= level) continue;
      const params = { window: this.RED._(windowKey(w.window)), count: w.count, limit: w.limit };
      worst = {
        level,
        status: !reached
          ? warn(this.RED._(sharedKey('budget.statusWarning'), params))
          : w.window === 'hour'
            ? failed(this.RED._(sharedKey('budget.statusReachedHour'), params))
            : failed(
                this.RED._(sharedKey('budget.statusReached'), {
                  ...params,
                  resets: shortTime(w.resetsAt, now),
                }),
              ),
      };
    }
    const next = worst?.status;
    if (next?.text === this.status?.text && next?.fill === this.status?.fill) return;
    this.status = next;
    this.changed();
  }
}
