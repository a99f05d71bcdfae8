/**
 * smsgw-heartbeat: a dead-man switch. Expects a msg at least every N (seconds, minutes, hours) per source (its
 * Source field: msg.topic by default); one that stays quiet longer (plus the grace) is overdue:
 *   Out 1 (overdue), once: msg.topic = the source, msg.payload = { source, lastSeen, overdueSince, expectedEveryMs }
 *   Out 2 (back), once, at its next msg: the same, lastSeen now.
 * Listed sources (the Sources field) are watched from the start, so one that never reports is overdue too; without
 * a list any source is watched from its first msg. msg.heartbeat = { forget: true } stops watching the msg's source.
 * With a gateway configuration: coordinated through its Redis when it coordinates instances (each alarm once across
 * them), and, with "Watch the gateway", failed calls in a row or a low balance are alarms on the same outputs.
 * What is kept and when it is written: heartbeat/sources*.ts; the gateway watch: heartbeat/gateway-watch.ts.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { GatewayError } from '../errors';
import { safeText } from '../text/untrusted';
import { attachConfig, nameUnnamed } from './config/config';
import { queryBalance } from './config/gateway';
import type { SmsgwConfigNode } from './config/config-node';
import { NodeGatewayError, toGatewayError } from './common/errors';
import { deployFields, msgValue } from './common/fields';
import { overridesOf } from './common/override-table';
import { fieldOf } from './common/props';
import { stateStoreFor, StoreWatch } from './common/state';
import { failed, idle, ok, sharedKey } from './common/status';
import { fieldsOf } from './fields';
import { errorCodes } from './fields/rule';
import { GatewayWatch } from './heartbeat/gateway-watch';
import {
  listedSources,
  MAX_SOURCE_LENGTH,
  MAX_SOURCES,
  MIN_PERIOD_MS,
  type GatewayKind,
  type HeartbeatEvent,
  type HeartbeatPlan,
  type Sources,
  type SourcesDeps,
} from './heartbeat/sources';
import { LocalSources, type HeartbeatFile } from './heartbeat/sources-local';
import { SharedSources } from './heartbeat/sources-shared';

interface HeartbeatDef extends NodeDef {
  gateway?: string;
  source?: string;
  sourceType?: string;
  [field: string]: unknown;
}

/** Distinct unlisted sources warned about per run (then one line says more were ignored). */
const UNLISTED_TOLD = 20;

/** ms per unit of Every and Grace (their rule's, src/nodes/fields/heartbeat.ts). */
const unitMs = (unit: unknown): number => {
  const timer = fieldsOf('smsgw-heartbeat').every!.timer as { ms: Readonly<Record<string, number>> };
  return timer.ms[String(unit)]!;
};

/** The node's plan from its judged settings. */
export function planOf(v: Readonly<Record<string, unknown>>): HeartbeatPlan {
  const ms = unitMs(v.unit);
  const listed = listedSources(v.sources);
  return {
    everyMs: Math.max(MIN_PERIOD_MS, Math.round((v.every as number) * ms)),
    graceMs: Math.round((v.grace as number) * ms),
    listed: listed ? new Set(listed) : undefined,
    max: MAX_SOURCES,
  };
}

/** The source a msg names: text (a number as text), judged by the Source field's rule, at most 500 characters. */
function sourceOf(value: unknown): string {
  const judged = msgValue('smsgw-heartbeat', 'source', value);
  const source =
    typeof judged === 'string'
      ? judged
      : typeof judged === 'number' || typeof judged === 'boolean'
        ? String(judged)
        : undefined;
  if (source === undefined)
    throw new GatewayError('VALIDATION', 'the source must be text (or a number), not an object or a list', {
      ambiguous: false,
    });
  if (source.length > MAX_SOURCE_LENGTH)
    throw new GatewayError(
      'VALIDATION',
      `the source is ${source.length} characters long: at most ${MAX_SOURCE_LENGTH} are watched`,
      { ambiguous: false },
    );
  return source;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export default (RED: NodeAPI): void => {
  function SmsgwHeartbeat(this: Node, def: HeartbeatDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/heartbeat.ts): a refused one and the node only says why.
    const v = deployFields(RED, this, 'smsgw-heartbeat', def);
    if (v) start(this, def, v);
  }

  /** The node does nothing but say why: its status, one log line, CONFIG for every msg. */
  function refuse(node: Node, err: GatewayError, status?: string): void {
    node.error(err.message);
    if (status !== undefined) node.status(failed(status));
    node.on('input', (_msg: NodeMessageInFlow, _send: unknown, done: (err?: Error) => void) =>
      done(new NodeGatewayError(err)),
    );
  }

  function start(node: Node, def: HeartbeatDef, v: Record<string, unknown>): void {
    nameUnnamed(RED, node);
    const gatewayId = typeof def.gateway === 'string' && def.gateway !== '' ? def.gateway : undefined;
    const config = gatewayId ? attachConfig(RED, node, gatewayId) : undefined;
    if (gatewayId && !config) {
      // attachConfig shows the red "missing" ring.
      refuse(
        node,
        new GatewayError('CONFIG', RED._('smsgw-heartbeat.errors.noGateway'), { ambiguous: false }),
      );
      return;
    }
    if (v.watch === true && !config) {
      const text = RED._('smsgw-heartbeat.errors.watchNeedsGateway');
      refuse(node, new GatewayError('CONFIG', text, { ambiguous: false }), text);
      return;
    }
    const coordination = config?.coordination;
    if (coordination && !coordination.link) {
      const err =
        coordination.error ?? new GatewayError('CONFIG', 'coordination through Redis is not available');
      refuse(node, err, RED._(sharedKey('status.redisDown'), { message: err.message.split('\n')[0]! }));
      return;
    }

    const plan = planOf(v);
    // A node written by hand or imported without a Source takes the dialog's default (msg.topic).
    const d: Record<string, unknown> = { ...def };
    if (d.source === undefined) {
      d.source = 'topic';
      d.sourceType = 'msg';
    }
    const overrides = overridesOf(RED, node, 'smsgw-heartbeat', d);
    const gatewayName = config ? config.name || config.id : undefined;
    let trouble: string | undefined;
    let shown: NodeStatus | undefined;
    let closed = false;

    const status = (): void => {
      if (closed) return;
      const s = statusOf();
      if (shown && s.fill === shown.fill && s.shape === shown.shape && s.text === shown.text) return;
      shown = s;
      node.status(s);
    };
    const store = new StoreWatch(RED, node, () => status());
    const statusOf = (): NodeStatus => {
      const problem = store.status();
      if (problem) return problem;
      if (trouble !== undefined)
        return failed(RED._(sharedKey('status.redisDown'), { message: trouble.split('\n')[0]! }));
      const c = sources.counts();
      const parts: string[] = [];
      if (c.watched > 0 || c.gateway.length === 0)
        parts.push(
          c.overdue > 0
            ? RED._('smsgw-heartbeat.status.overdue', { overdue: c.overdue, count: c.watched })
            : c.watched > 0
              ? RED._('smsgw-heartbeat.status.watched', { count: c.watched })
              : RED._('smsgw-heartbeat.status.none'),
        );
      for (const kind of c.gateway) parts.push(RED._(`smsgw-heartbeat.status.gateway.${kind}`));
      const text = parts.join(' · ');
      if (c.overdue > 0 || c.gateway.length > 0) return { fill: 'red', shape: 'dot', text: safeText(text) };
      return c.watched > 0 ? ok(text) : idle(text);
    };

    const gatewayTopic = (kind: GatewayKind): string => `gateway/${gatewayName ?? ''}/${kind}`;
    const emit = (e: HeartbeatEvent): void => {
      if (closed) return;
      let msg: NodeMessage;
      let back = false;
      switch (e.type) {
        case 'overdue':
        case 'back':
          back = e.type === 'back';
          msg = {
            topic: e.source,
            payload: {
              source: e.source,
              lastSeen: e.lastSeen === undefined ? null : iso(e.lastSeen),
              overdueSince: iso(e.overdueSince),
              expectedEveryMs: plan.everyMs,
            },
          };
          break;
        case 'gatewayDown':
        case 'gatewayBack': {
          back = e.type === 'gatewayBack';
          const a = e.alarm;
          const topic = gatewayTopic(e.kind);
          msg = {
            topic,
            payload: {
              source: topic,
              gateway: gatewayName,
              reason: e.kind,
              since: iso(a.since),
              ...(a.failures !== undefined ? { failures: a.failures } : {}),
              ...(a.code !== undefined ? { code: a.code } : {}),
              ...(a.message !== undefined ? { error: a.message } : {}),
              ...(a.balance !== undefined ? { balance: a.balance, threshold: a.threshold } : {}),
              ...(e.type === 'gatewayBack' ? { backAt: iso(e.at) } : {}),
            },
          };
          break;
        }
      }
      node.send(back ? [null, msg] : [msg, null]);
    };

    const deps: SourcesDeps = {
      plan,
      emit,
      changed: status,
      dropped: (count) =>
        node.error(RED._('smsgw-heartbeat.errors.dropped', { count, where: sources.where })),
      lost: (why, count) =>
        node.error(RED._('smsgw-heartbeat.errors.lost', { why, count, where: sources.where }), {
          topic: 'smsgw/heartbeat/lost',
          payload: { why, watchedAgain: count, where: sources.where },
        }),
      trouble: (why) => {
        if (why === trouble) return;
        trouble = why;
        status();
      },
    };
    const sources: Sources = coordination?.link
      ? new SharedSources(
          coordination.link,
          coordination.key('smsgw-heartbeat', node.id),
          deps,
          coordination.keySpace,
        )
      : new LocalSources(stateStoreFor<HeartbeatFile>(RED, node, def, 'heartbeat', store), deps);

    const gateway = v.watch === true && config ? watchGateway(node, config, sources, v) : undefined;
    const started = sources.start().then(
      () => {
        gateway?.start();
        status();
      },
      (err: unknown) => {
        if (!closed) node.error(err instanceof Error ? err.message : String(err));
      },
    );
    status();

    let fullTold = false;
    const unlistedTold = new Set<string>();
    const handle = async (msg: NodeMessageInFlow): Promise<void> => {
      const control = overrides.msg(msg, 'heartbeat');
      const source = sourceOf(await fieldOf(RED, node, d, msg, 'source'));
      await started;
      if (control?.forget === true) {
        await sources.forget(source);
        return;
      }
      const outcome = await sources.seen(source);
      if (outcome === 'full') {
        if (!fullTold)
          node.warn(RED._('smsgw-heartbeat.errors.full', { max: plan.max, source: safeText(source) }));
        fullTold = true;
      } else if (outcome === 'added') fullTold = false;
      else if (outcome === 'unlisted' && !unlistedTold.has(source) && unlistedTold.size <= UNLISTED_TOLD) {
        unlistedTold.add(source);
        node.warn(
          unlistedTold.size > UNLISTED_TOLD
            ? RED._('smsgw-heartbeat.errors.unlistedMore', { count: UNLISTED_TOLD })
            : RED._('smsgw-heartbeat.errors.unlisted', { source: safeText(source) }),
        );
      }
    };

    node.on('input', (msg: NodeMessageInFlow, _send, done) => {
      handle(msg).then(
        () => done(),
        (err: unknown) => done(new NodeGatewayError(toGatewayError(err))),
      );
    });

    node.on('close', (removed: boolean, done: () => void) => {
      closed = true;
      gateway?.close();
      void sources
        .close(removed)
        .catch(() => undefined)
        .then(() => {
          node.status({});
          done();
        });
    });
  }

  /** The gateway watch on the config's calls (its onCall hook) and, with a threshold, its balance. */
  function watchGateway(
    node: Node,
    config: SmsgwConfigNode,
    sources: Sources,
    v: Record<string, unknown>,
  ): GatewayWatch {
    let lastFailure = '';
    const watch = new GatewayWatch({
      sources,
      failures: v.failures as number,
      codes: new Set(errorCodes(v.failCodes)),
      balanceBelow: typeof v.balanceBelow === 'number' ? v.balanceBelow : undefined,
      balanceEveryMs: (v.balanceEvery as number) * 60_000,
      readBalance: (signal) => queryBalance(config.getClient(), config.service, signal),
      failed: (err) => {
        // One line per distinct trouble (Redis away or a store that cannot write say more themselves).
        const text = err instanceof Error ? err.message : String(err);
        if (text === lastFailure) return;
        lastFailure = text;
        node.warn(RED._('smsgw-heartbeat.errors.watchFailed', { message: safeText(text) }));
      },
    });
    const off = config.reliability?.onCall(watch.outcome);
    node.on('close', () => off?.());
    return watch;
  }

  RED.nodes.registerType('smsgw-heartbeat', SmsgwHeartbeat);
};
