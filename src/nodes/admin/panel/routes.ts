/**
 * The panel's admin routes: GET smsgw/panel/<config>/<section> (smsgw-config.read) answers a section's data,
 * numbers masked unless the user may change the configuration and asks `reveal=1`; POST
 * smsgw/panel/<config>/<section>/<action> (smsgw-config.write) runs an action. Only deployed smsgw-config nodes
 * answer; nothing here reads credentials.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import type { SmsgwConfigNode } from '../../config/config-node';
import { toGatewayError } from '../../common/errors';
import { shownAs } from './mask';
import { userHolds } from './permissions';
import { panelSection, registerPanelSection, type PanelContext } from './registry';
import { healthSection } from './health';
import { questionsSection } from './questions';
import { spendSection } from './spend';
import { inboundSection } from './inbound';

registerPanelSection(spendSection);
registerPanelSection(healthSection);
registerPanelSection(questionsSection);
registerPanelSection(inboundSection);

function contextOf(RED: NodeAPI, config: SmsgwConfigNode, req: Request): PanelContext {
  const canWrite = userHolds(req, 'smsgw-config.write');
  const reveal = canWrite && req.query.reveal === '1';
  // The configuration's own clock (tests move it by hand), as the outbox's times are written by it.
  const now = config.reliability?.clock.now() ?? Date.now();
  return { RED, config, canWrite, shown: shownAs(reveal), now };
}

const fail = (res: Response, e: unknown): void => {
  const err = toGatewayError(e);
  res.status(500).json({ code: err.code, message: err.message });
};

export function registerPanelRoutes(
  RED: NodeAPI,
  configNode: (id: string) => SmsgwConfigNode | undefined,
): void {
  const app = RED.httpAdmin;
  app.get(
    '/smsgw/panel/:config/:section',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      const section = panelSection(String(req.params.section));
      const config = configNode(String(req.params.config));
      if (!section || !config) {
        res
          .status(404)
          .json({ message: section ? 'no such deployed gateway configuration' : 'no such section' });
        return;
      }
      const ctx = contextOf(RED, config, req);
      Promise.resolve()
        .then(() => section.data(ctx))
        .then(
          (data) => res.json({ ...data, canWrite: ctx.canWrite }),
          (e: unknown) => fail(res, e),
        );
    },
  );
  app.post(
    '/smsgw/panel/:config/:section/:action',
    RED.auth.needsPermission('smsgw-config.write'),
    (req: Request, res: Response) => {
      const action = panelSection(String(req.params.section))?.actions?.[String(req.params.action)];
      const config = configNode(String(req.params.config));
      if (!action || !config) {
        res
          .status(404)
          .json({ message: action ? 'no such deployed gateway configuration' : 'no such action' });
        return;
      }
      const body =
        typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
      action(contextOf(RED, config, req), body).then(
        (r) => res.status(r.status).json(r.body),
        (e: unknown) => fail(res, e),
      );
    },
  );
}
