import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { GatewayClient } from '../../client';
import type { CountryCode } from 'libphonenumber-js/min';
import { checkRecipientText, defaultCountryOf, type RecipientEntry } from '../../client/recipients';
import type { OperationDef } from '../../catalogue';
import {
  analyzeText,
  checkSegments,
  sendTypeInfo,
  type LengthProblem,
  type SegmentLimits,
  type TextAnalysis,
} from '../../text';
import { clientOptions, segmentLimitsOf } from '../config/client-options';
import { toGatewayError } from '../common/errors';
import { editorCatalogue, operationOf } from '../common/operations';
import { queryBalance } from '../config/gateway';
import type { ServiceKind, SmsgwConfigDef, SmsgwConfigNode, SmsgwCredentials } from '../config/types';

/** What the editor's password field holds when a password is already stored. */
export const PASSWORD_PLACEHOLDER = '__PWRD__';

const registered = new WeakSet<object>();

type TestBody = Partial<SmsgwConfigDef> & SmsgwCredentials;

/**
 * Editor helpers on the admin API (never on httpNode): the operation catalogue, text analysis while typing,
 * and "Test connection". Registered once per admin app.
 */
export function registerAdminRoutes(RED: NodeAPI): void {
  const app = RED.httpAdmin;
  if (!app || registered.has(app)) return;
  registered.add(app);

  app.get(
    '/smsgw/operations',
    RED.auth.needsPermission('smsgw-config.read'),
    (_req: Request, res: Response) => {
      res.json(editorCatalogue());
    },
  );

  app.post(
    '/smsgw/recipients',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      res.json(recipientsForEditor((req.body ?? {}) as RecipientsBody));
    },
  );

  app.post('/smsgw/analyze', RED.auth.needsPermission('smsgw-config.read'), (req: Request, res: Response) => {
    res.json(analyzeForEditor((req.body ?? {}) as AnalyzeBody));
  });

  // The durable outbox of a deployed config node: list (entries hold no credentials) and clear.
  const hostOf = (id: string) => (RED.nodes.getNode(id) as SmsgwConfigNode | null)?.reliability;
  app.get(
    '/smsgw-config/:id/outbox',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      const host = hostOf(String(req.params.id));
      if (!host) {
        // Not deployed (yet): the dialog of a new config node asks too, and there is simply nothing kept.
        res.json({ enabled: false, deployed: false, entries: [] });
        return;
      }
      void host.list().then(
        (r) => res.json(r),
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
    },
  );
  app.delete(
    '/smsgw-config/:id/outbox',
    RED.auth.needsPermission('smsgw-config.write'),
    (req: Request, res: Response) => {
      const host = hostOf(String(req.params.id));
      if (!host) {
        res.status(404).json({ cleared: 0 });
        return;
      }
      void host.clear().then(
        (cleared) => res.json({ cleared }),
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
    },
  );

  app.post(
    '/smsgw-config/:id/test',
    RED.auth.needsPermission('smsgw-config.write'),
    (req: Request, res: Response) => {
      void testConnection(RED, String(req.params.id), (req.body ?? {}) as TestBody).then((result) =>
        res.json(result),
      );
    },
  );
}

interface AnalyzeBody {
  text?: unknown;
  /** "service/Name" of the operation the dialog sends with, when the type is known. */
  operation?: unknown;
  /** The SMS type chosen in the dialog (SmsTyp or MobileSMSType). */
  smsType?: unknown;
  /** The selected config node's Single SMS and Long SMS fields. */
  segmentsSingle?: unknown;
  segmentsLong?: unknown;
}

/**
 * Encoding and segments of the text in a send dialog and, when the dialog knows the operation and type, what
 * the node would refuse it for (the same check as before sending, with the selected config's limits).
 */
function analyzeForEditor(body: AnalyzeBody): TextAnalysis & { tooLong?: LengthProblem } {
  const text = typeof body.text === 'string' ? body.text : '';
  const analysis: TextAnalysis & { tooLong?: LengthProblem } = analyzeText(text);
  if (typeof body.operation !== 'string') return analysis;
  let op: OperationDef;
  let limits: SegmentLimits;
  try {
    op = operationOf(body.operation);
    limits = segmentLimitsOf({
      segmentsSingle: body.segmentsSingle as string | undefined,
      segmentsLong: body.segmentsLong as string | undefined,
    });
  } catch {
    return analysis;
  }
  const typeParam = op.params.some((p) => p.name === 'MobileSMSType') ? 'MobileSMSType' : 'SmsTyp';
  const problem = checkSegments(text, sendTypeInfo(op, { [typeParam]: body.smsType }), limits);
  if (problem) analysis.tooLong = problem;
  return analysis;
}

interface RecipientsBody {
  recipients?: unknown;
  /** The selected config node's Default country and Check recipients fields. */
  defaultCountry?: unknown;
  checkRecipients?: unknown;
}

/** Each entry of a send dialog's recipient text as the node would send or refuse it (client/recipients.ts). */
function recipientsForEditor(body: RecipientsBody): { entries: RecipientEntry[]; country?: string } {
  const text = typeof body.recipients === 'string' ? body.recipients : '';
  if (body.checkRecipients === false) return { entries: [] };
  let defaultCountry: CountryCode | undefined;
  try {
    defaultCountry = defaultCountryOf(typeof body.defaultCountry === 'string' ? body.defaultCountry : '');
  } catch {
    // the config dialog shows that error; here the numbers are checked as without a country
  }
  const entries = checkRecipientText(text, { defaultCountry });
  return defaultCountry ? { entries, country: defaultCountry } : { entries };
}

/** Credentials from the dialog, falling back to the stored ones where the dialog shows the placeholder. */
function credentialsFor(RED: NodeAPI, id: string, body: TestBody): SmsgwCredentials {
  const stored = (RED.nodes.getCredentials(id) ?? {}) as SmsgwCredentials;
  const user = body.user === undefined ? stored.user : body.user;
  const password =
    body.password === undefined || body.password === PASSWORD_PLACEHOLDER ? stored.password : body.password;
  return { user: user ?? '', password: password ?? '' };
}

async function testConnection(RED: NodeAPI, id: string, body: TestBody): Promise<Record<string, unknown>> {
  const service: ServiceKind = body.service === 'legacy' ? 'legacy' : 'gateway';
  let client: GatewayClient | undefined;
  try {
    const def = { ...body, service, transport: body.transport ?? 'soap11' } as SmsgwConfigDef;
    client = new GatewayClient(clientOptions(def, credentialsFor(RED, id, body)));
    const balance = await queryBalance(client, service, AbortSignal.timeout(30_000));
    return { ok: true, balance, operation: service === 'legacy' ? 'QueryBalance2' : 'QueryAccountBalance' };
  } catch (err) {
    const e = toGatewayError(err);
    return { ok: false, code: e.code, status: e.status, message: e.message };
  } finally {
    await client?.close().catch(() => undefined);
  }
}
