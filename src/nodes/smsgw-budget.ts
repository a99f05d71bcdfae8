/**
 * smsgw-budget: the spending guard of a gateway configuration (its Budget tab) as messages a flow can act on,
 * without polling. Out: one msg per warning (a limit reached its warning share: once per window) and per limit
 * reached (the first send refused or held by it in the window): msg.topic = "budget/warning" or "budget/limit",
 * msg.payload = { event, window, count, limit, percent, resetsAt, gateway }. When the counts were lost (a count
 * file missing or damaged, Redis emptied): msg.topic = "budget/lost", payload { why, where, since, how, gateway }
 * (every send is refused until a person confirms), and "budget/confirmed" once someone did. In (optional): any msg
 * is sent on with msg.payload = the counts now ({ enabled, windows: [{ window, count, limit, warnAt, resetsAt }],
 * lost?, ... }); msg.topic "budget/confirm" first confirms lost counts (logged, kept across a restart).
 * Status: the count of each limited window, yellow at the warning share, red when a limit is reached or the counts
 * were lost.
 * Why a node and not a Status node on the send nodes: a status is text for people (translated, and replaced by
 * the next send's status), where a flow needs a value that arrives once per window (docs/nodes.md).
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { CONFIRM_HOW, type BudgetEvent, type WindowState } from '../reliability/budget';
import { attachConfig } from './config/config';
import { idle, ok, warn, failed } from './common/status';
import { deployFields } from './common/fields';

interface BudgetNodeDef extends NodeDef {
  gateway: string;
}

export default (RED: NodeAPI): void => {
  function SmsgwBudget(this: Node, def: BudgetNodeDef): void {
    RED.nodes.createNode(this, def);
    // A refused setting (its own or its gateway configuration's, such as a negative limit): the node says why.
    if (deployFields(RED, this, 'smsgw-budget', def)) start(this, def);
  }

  function start(node: Node, def: BudgetNodeDef): void {
    const config = attachConfig(RED, node, def.gateway);
    const host = config?.reliability;
    const budget = host?.budget;
    const gateway = config?.name || config?.id;
    if (config && !budget) node.status(idle(RED._('smsgw-budget.status.off')));

    const windowText = (w: WindowState): string =>
      RED._('smsgw-budget.status.window', {
        window: RED._(`smsgw-budget.window.${w.window}`),
        count: w.count,
        limit: w.limit,
      });
    let shown = '';
    const show = (windows: WindowState[]): void => {
      if (windows.length === 0) return;
      if (budget?.lost) {
        const key = 'lost';
        if (key === shown) return;
        shown = key;
        node.status(failed(RED._('smsgw-budget.status.lost')));
        return;
      }
      const text = windows.map(windowText).join(' · ');
      const reached = windows.some((w) => w.count >= w.limit);
      const warned = windows.some((w) => w.warnAt !== undefined && w.count >= w.warnAt);
      const status: NodeStatus = reached ? failed(text) : warned ? warn(text) : ok(text);
      const key = `${status.fill}|${text}`;
      if (key === shown) return;
      shown = key;
      node.status(status);
    };

    if (budget && host) {
      const refresh = (): void => {
        void budget.snapshot().then(
          (s) =>
            show(
              ((s.windows ?? []) as (WindowState & { resetsAt: string })[]).map((w) => ({
                ...w,
                resetsAt: Date.parse(w.resetsAt),
              })),
            ),
          () => undefined,
        );
      };
      const offEvents = budget.subscribe((e: BudgetEvent) => {
        node.send({
          topic: `budget/${e.event}`,
          payload: { ...e, resetsAt: new Date(e.resetsAt).toISOString(), gateway },
        });
      });
      // The counts lost (once per loss, also one found before this node started) and confirmed again.
      let toldLost: number | undefined;
      const tellLost = (): void => {
        const lost = budget.lost;
        if (!lost || toldLost === lost.since) return;
        toldLost = lost.since;
        node.send({
          topic: 'budget/lost',
          payload: { ...lost, since: new Date(lost.since).toISOString(), how: CONFIRM_HOW, gateway },
        });
      };
      const offLoss = budget.subscribeLoss((e) => {
        if (e.type === 'lost') tellLost();
        else {
          toldLost = undefined;
          node.send({
            topic: 'budget/confirmed',
            payload: { by: e.confirmed.by, at: new Date(e.confirmed.at).toISOString(), gateway },
          });
        }
        show(budget.windowsNow());
      });
      // The config's state changes (a count, a reset) reach every node of the config through its listeners.
      const offStatus = host.subscribe(node, () => show(budget.windowsNow()));
      refresh();
      void budget.budget().then(
        () => tellLost(),
        () => undefined,
      );
      node.on('close', () => {
        offEvents();
        offLoss();
        offStatus();
      });
    }

    node.on('input', (msg, send, done) => {
      if (!budget) {
        msg.payload = { enabled: false, windows: [] };
        send(msg);
        done();
        return;
      }
      // msg.topic "budget/confirm": a person (a flow acting for one) confirms lost counts first.
      const confirm =
        msg.topic === 'budget/confirm'
          ? budget.confirm(
              `a flow (budget node ${typeof def.name === 'string' && def.name !== '' ? def.name : node.id})`,
            )
          : Promise.resolve(undefined);
      confirm
        .then((confirmed) =>
          budget.snapshot().then((s) => {
            msg.payload = {
              ...s,
              gateway,
              ...(msg.topic === 'budget/confirm'
                ? { confirmed: confirmed ? { ...confirmed, at: new Date(confirmed.at).toISOString() } : null }
                : {}),
            };
            send(msg);
            done();
          }),
        )
        .catch((err: unknown) => done(err instanceof Error ? err : new Error(String(err))));
    });
  }

  RED.nodes.registerType('smsgw-budget', SmsgwBudget);
};
