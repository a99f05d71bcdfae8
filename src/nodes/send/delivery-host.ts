import type { Node, NodeAPI } from 'node-red';
import { DeliveryTracker } from './delivery-tracker';
import { ReportStatuses } from '../polling/report-status';
import { StoreWatch } from '../common/state';
import { sharedKey } from '../common/status';
import type { SmsgwConfigNode } from '../config/config-node';
import { userDirOf } from '../common/user-dir';
import { safeText } from '../../text/untrusted';

/** A config node that owns a delivery tracker (see attachDeliveryTracker). */
export interface TrackerHost {
  getDeliveryTracker(): DeliveryTracker;
}

export function hasTracker(config: unknown): config is TrackerHost {
  return typeof (config as Partial<TrackerHost> | null)?.getDeliveryTracker === 'function';
}

type Settings = Record<string, unknown>;

const numberSetting = (s: Settings, name: string, fallback: number): number => {
  const n = Number(s[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/**
 * Gives a config node its one delivery tracker, built on first use (only flows with tracking send nodes poll)
 * and closed with the node. settings.js: smsgwDeliveryPollInterval (ms, default 30000), smsgwDeliveryLookback
 * (minutes, default 60), smsgwDeliveryFinalStates and smsgwDeliveryPendingStates (comma-separated; defaults in
 * polling/report-status.ts, the same lists the smsgw-dlr node uses).
 */
export function attachDeliveryTracker(RED: NodeAPI, node: SmsgwConfigNode): void {
  const settings = RED.settings as unknown as Settings;
  let tracker: DeliveryTracker | undefined;
  const watch = new StoreWatch(RED, node);
  (node as SmsgwConfigNode & TrackerHost).getDeliveryTracker = (): DeliveryTracker => {
    tracker ??= new DeliveryTracker({
      userDir: userDirOf(RED),
      id: node.id,
      query: (start, limit, signal) =>
        node.getClient().information.queryReceivedDlr({ StartDate: start, Limit: limit }, { signal }),
      intervalMs: numberSetting(settings, 'smsgwDeliveryPollInterval', 30_000),
      lookbackMs: numberSetting(settings, 'smsgwDeliveryLookback', 60) * 60_000,
      statuses: ReportStatuses.from(settings.smsgwDeliveryFinalStates, settings.smsgwDeliveryPendingStates),
      onUnknownStatus: (status, jobId) =>
        node.warn(
          RED._(sharedKey('errors.trackUnknownStatus'), { status: safeText(status), jobId: String(jobId) }),
        ),
      onOverflow: (kept) => node.warn(RED._(sharedKey('errors.trackOverflow'), { kept })),
      onError: (err, failures) => {
        const text = safeText(err instanceof Error ? err.message : err);
        node.warn(RED._(sharedKey('errors.tracking'), { message: text, failures }));
      },
      onDamaged: watch.damaged,
      onStoreProblem: watch.report,
    });
    return tracker;
  };
  (node as Node).on('close', (_removed: boolean, done: () => void) => {
    const t = tracker;
    tracker = undefined;
    void (t ? t.close() : Promise.resolve()).finally(() => done());
  });
}
