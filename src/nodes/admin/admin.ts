import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { GatewayClient } from '../../client';
import type { CountryCode } from 'libphonenumber-js/min';
import { checkRecipientText, defaultCountryOf, type RecipientEntry } from '../../client/recipients';
import type { OperationDef } from '../../catalogue';
import {
  MAX_CONTENT_LENGTH,
  analyzeText,
  lookalikeSwaps,
  replaceLookalikes,
  ucs2Chars,
  checkSegments,
  sendTypeInfo,
  type LengthProblem,
  type SegmentLimits,
  type Swap,
  type TextAnalysis,
  type Ucs2Char,
} from '../../text';
import { recipientCount } from '../../reliability/budget-cost';
import { clientOptions, segmentLimitsOf } from '../config/client-options';
import { toGatewayError } from '../common/errors';
import { editorCatalogue, operationOf } from '../common/operations';
import { queryBalance } from '../config/gateway';
import type { SmsgwConfigNode } from '../config/config-node';
import type { ServiceKind, SmsgwConfigDef, SmsgwCredentials } from '../config/types';
import { accountErrorOf, destinationChanges, destinationOf, hasAccount } from '../config/account';
import { GatewayError } from '../../errors';
import { registerPanelRoutes } from './panel/routes';

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
  const hostOf = (id: string) => configNode(RED, id)?.reliability;
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

  // Which deployed configurations lack user or password (the editor's warning triangle); no values, only yes/no.
  app.get(
    '/smsgw/accounts',
    RED.auth.needsPermission('smsgw-config.read'),
    (_req: Request, res: Response) => {
      res.json(accountsForEditor(RED));
    },
  );

  // The spending guard's counts of a deployed config node (no credentials, no message content).
  app.get(
    '/smsgw-config/:id/budget',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      const budget = hostOf(String(req.params.id))?.budget;
      if (!budget) {
        res.json({ enabled: false, windows: [] });
        return;
      }
      void budget.snapshot().then(
        (r) => res.json(r),
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
    },
  );

  // After the counts were lost (a count file missing or damaged, Redis emptied), a person confirms them: every
  // send was refused until then. Logged with who confirmed; survives a restart (the ledger writes it down).
  app.post(
    '/smsgw-config/:id/budget/confirm',
    RED.auth.needsPermission('smsgw-config.write'),
    confirmRoute(
      (id) => hostOf(id)?.budget,
      'no spending limit is set on this configuration (or it is not deployed)',
    ),
  );

  // The opt-out list of a deployed config node: how many numbers are on it, and a loss to confirm.
  app.get(
    '/smsgw-config/:id/optout',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      const list = configNode(RED, String(req.params.id))?.optOut;
      if (!list) {
        res.json({ enabled: false });
        return;
      }
      void list.snapshot().then(
        (r) => res.json(r),
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
    },
  );

  // After the list was lost (its file missing or damaged), a person confirms it: every send was refused until
  // then. Logged with who confirmed; survives a restart (the list's file writes it down).
  app.post(
    '/smsgw-config/:id/optout/confirm',
    RED.auth.needsPermission('smsgw-config.write'),
    confirmRoute(
      (id) => configNode(RED, id)?.optOut,
      'no opt-out list is on in this configuration (or it is not deployed)',
    ),
  );

  // The opt-out list as CSV (number,state,since,source): export with the right to read the configuration, import
  // (all or nothing, the first bad line named) with the right to change it.
  app.get(
    '/smsgw-config/:id/optout/export',
    RED.auth.needsPermission('smsgw-config.read'),
    (req: Request, res: Response) => {
      const id = String(req.params.id);
      const list = configNode(RED, id)?.optOut;
      if (!list) {
        res
          .status(404)
          .json({ message: 'no opt-out list is on in this configuration (or it is not deployed)' });
        return;
      }
      void list.exportCsv().then(
        (csv) => {
          res.set('Content-Type', 'text/csv; charset=utf-8');
          res.set('Content-Disposition', `attachment; filename="optout-${id.replace(/[^\w.-]/g, '_')}.csv"`);
          res.send(csv);
        },
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
    },
  );

  app.post(
    '/smsgw-config/:id/optout/import',
    RED.auth.needsPermission('smsgw-config.write'),
    (req: Request, res: Response) => {
      const list = configNode(RED, String(req.params.id))?.optOut;
      if (!list) {
        res
          .status(404)
          .json({ message: 'no opt-out list is on in this configuration (or it is not deployed)' });
        return;
      }
      const csv = objectOf(req.body).csv;
      if (typeof csv !== 'string') {
        res.status(400).json({ message: 'the body must be JSON { "csv": "<the file\'s text>" }' });
        return;
      }
      const user = editorUser(req);
      const by = user ? `import by ${user}` : 'import in the editor';
      void list.importCsv(csv, by).then(
        (rows) => res.json({ imported: rows }),
        (e: unknown) => {
          const err = toGatewayError(e);
          res.status(err.code === 'VALIDATION' ? 400 : 500).json({ code: err.code, message: err.message });
        },
      );
    },
  );

  // The SMS panel of the editor's sidebar (nodes/smsgw-panel.html): one route per section.
  registerPanelRoutes(RED, (id) => configNode(RED, id));

  // Test connection sends a request with the dialog's values to any address: the right to deploy flows
  // (which can do as much) is needed besides the config node's own.
  app.post(
    '/smsgw-config/:id/test',
    needsAll(RED, ['smsgw-config.write', 'flows.write']),
    (req: Request, res: Response) => {
      void testConnection(RED, String(req.params.id), objectOf(req.body) as TestBody).then((result) =>
        res.json(result),
      );
    },
  );
}

/** Node-RED checks a list of permissions as "all of them"; its type declarations only admit one. */
/** What a person confirms after counts or a list were lost: every send was refused until then. */
interface Confirmable {
  confirm(by: string): Promise<unknown>;
  snapshot(): Promise<unknown>;
}

/** Who confirmed, as the log and the state file say it. */
function editorUser(req: Request): string | undefined {
  const user = (req as Request & { user?: { username?: unknown } }).user?.username;
  return typeof user === 'string' && user !== '' ? user : undefined;
}

/**
 * The confirm route of what was lost (budget counts, the opt-out list): logged with who confirmed, answered with
 * the state as it is now; 404 when the configuration has none of it (or is not deployed).
 */
function confirmRoute(
  find: (id: string) => Confirmable | undefined,
  missing: string,
): (req: Request, res: Response) => void {
  return (req, res) => {
    const target = find(String(req.params.id));
    if (!target) {
      res.status(404).json({ message: missing });
      return;
    }
    const user = editorUser(req);
    void target
      .confirm(user ? `the editor (${user})` : 'the editor')
      .then(() => target.snapshot())
      .then(
        (r) => res.json(r),
        (e: unknown) => res.status(500).json({ message: e instanceof Error ? e.message : String(e) }),
      );
  };
}

function needsAll(RED: NodeAPI, permissions: string[]): ReturnType<NodeAPI['auth']['needsPermission']> {
  return (
    RED.auth.needsPermission as unknown as (p: string[]) => ReturnType<NodeAPI['auth']['needsPermission']>
  )(permissions);
}

const objectOf = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/** A deployed node of type smsgw-config, never another type's node with the same id. */
function configNode(RED: NodeAPI, id: string): SmsgwConfigNode | undefined {
  const node = RED.nodes.getNode(id) as (SmsgwConfigNode & { type?: string }) | null;
  return node && node.type === 'smsgw-config' && typeof node.getClient === 'function' ? node : undefined;
}

/** id -> whether user and password are set, for every deployed smsgw-config node. */
function accountsForEditor(RED: NodeAPI): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  RED.nodes.eachNode((n) => {
    if (n.type !== 'smsgw-config') return;
    const running = configNode(RED, n.id);
    out[n.id] = running
      ? running.accountError === undefined
      : hasAccount((RED.nodes.getCredentials(n.id) ?? undefined) as SmsgwCredentials | undefined);
  });
  return out;
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
  /** The dialog's "Replace with GSM-7 look-alikes": analyse the text as the node would send it. */
  replace?: unknown;
  /** The dialog's fixed recipient text, when it has one: counted as the spending guard counts them. */
  recipients?: unknown;
}

/** A text longer than the hard cap (text/cap.ts): the route says so instead of reading it. */
interface TooLarge {
  tooLarge: { characters: number; max: number };
}

function tooLarge(text: string): TooLarge | undefined {
  return text.length > MAX_CONTENT_LENGTH
    ? { tooLarge: { characters: text.length, max: MAX_CONTENT_LENGTH } }
    : undefined;
}

/**
 * The analysis plus the characters that force UCS-2; with the replacement ticked, how many it replaced and which
 * (by what, where); with a fixed recipient text, how many recipients the spending guard counts.
 */
type EditorAnalysis = TextAnalysis & {
  ucs2: Ucs2Char[];
  replaced?: number;
  swaps?: Swap[];
  recipients?: number;
};

/**
 * Encoding and segments of the text in a send dialog and, when the dialog knows the operation and type, what
 * the node would refuse it for (the same check as before sending, with the selected config's limits). A text
 * over the hard cap is not analysed (the node refuses it at once too): O(1), whatever its length.
 */
export function analyzeForEditor(
  body: AnalyzeBody,
): (EditorAnalysis & { tooLong?: LengthProblem }) | TooLarge {
  const typed = typeof body.text === 'string' ? body.text : '';
  const over = tooLarge(typed);
  if (over) return over;
  // The text as the node sends it: replaced first when the box is ticked, as the node does before its checks.
  const swap = body.replace === true ? replaceLookalikes(typed) : undefined;
  const text = swap ? swap.text : typed;
  const analysis: EditorAnalysis & { tooLong?: LengthProblem } = {
    ...analyzeText(text),
    ucs2: ucs2Chars(text),
    ...(swap ? { replaced: swap.replaced, swaps: lookalikeSwaps(typed) } : {}),
    // The spending guard's own count of the recipients (the same split, at least 1).
    ...(typeof body.recipients === 'string' ? { recipients: recipientCount(body.recipients) } : {}),
  };
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

/**
 * Each entry of a send dialog's recipient text as the node would send or refuse it (client/recipients.ts). A
 * text over the hard cap is not split or checked: O(1), whatever its length.
 */
export function recipientsForEditor(
  body: RecipientsBody,
): { entries: RecipientEntry[]; country?: string } | (TooLarge & { entries: [] }) {
  const text = typeof body.recipients === 'string' ? body.recipients : '';
  if (body.checkRecipients === false) return { entries: [] };
  const over = tooLarge(text);
  if (over) return { ...over, entries: [] };
  let defaultCountry: CountryCode | undefined;
  try {
    defaultCountry = defaultCountryOf(typeof body.defaultCountry === 'string' ? body.defaultCountry : '');
  } catch {
    // the config dialog shows that error; here the numbers are checked as without a country
  }
  const entries = checkRecipientText(text, { defaultCountry });
  return defaultCountry ? { entries, country: defaultCountry } : { entries };
}

/** The dialog's password fields hold this when a value is stored and was not changed. */
const isPlaceholder = (v: unknown): boolean => v === PASSWORD_PLACEHOLDER;

/**
 * The credentials to test with. The dialog sends what was typed; where it shows a stored value unchanged (the
 * placeholder, or no user at all) the stored one is taken, but only from a deployed smsgw-config node and only
 * for the destination it was deployed with (base URL, proxy, TLS checks): stored credentials never go to
 * another address, and another node type's credentials (an MQTT broker's password) are never read.
 */
function credentialsFor(RED: NodeAPI, id: string, body: TestBody): SmsgwCredentials | GatewayError {
  const typed = {
    user: typeof body.user === 'string' ? body.user : undefined,
    password: typeof body.password === 'string' && !isPlaceholder(body.password) ? body.password : undefined,
    proxyPassword:
      typeof body.proxyPassword === 'string' && !isPlaceholder(body.proxyPassword)
        ? body.proxyPassword
        : undefined,
  };
  const wanted = {
    user: typed.user === undefined,
    password: isPlaceholder(body.password),
    proxyPassword: isPlaceholder(body.proxyPassword),
  };
  if (!wanted.user && !wanted.password && !wanted.proxyPassword) return typed;
  const config = configNode(RED, id);
  if (!config) {
    return new GatewayError(
      'CONFIG',
      'no stored credentials to test with: this configuration is not deployed; type the user and password',
      { ambiguous: false },
    );
  }
  const changed = destinationChanges(config.destination, destinationOf(body));
  if (changed.length > 0) {
    const fields = changed.map((f) => FIELD_NAMES[f]).join(', ');
    return new GatewayError(
      'CONFIG',
      `${fields} differ${changed.length === 1 ? 's' : ''} from the deployed configuration: type the password to test there (the stored one is only sent where it was deployed for)`,
      { ambiguous: false },
    );
  }
  const stored = (config.credentials ?? {}) as SmsgwCredentials;
  return {
    user: wanted.user ? stored.user : typed.user,
    password: wanted.password ? stored.password : typed.password,
    proxyPassword: wanted.proxyPassword ? stored.proxyPassword : typed.proxyPassword,
  };
}

const FIELD_NAMES: Record<string, string> = {
  baseUrl: '"Base URL"',
  proxyUrl: '"Proxy URL"',
  tlsRejectUnauthorized: '"Verify the server\'s TLS certificate"',
  tlsCa: '"CA certificate"',
};

async function testConnection(RED: NodeAPI, id: string, body: TestBody): Promise<Record<string, unknown>> {
  const service: ServiceKind = body.service === 'legacy' ? 'legacy' : 'gateway';
  let client: GatewayClient | undefined;
  try {
    const creds = credentialsFor(RED, id, body);
    if (creds instanceof GatewayError) throw creds;
    const def = { ...body, service, transport: body.transport ?? 'soap11' } as SmsgwConfigDef;
    // Before anything is sent, as a send would fail.
    const missing = accountErrorOf(body, creds);
    if (missing) throw missing;
    client = new GatewayClient(clientOptions(def, creds));
    const balance = await queryBalance(client, service, AbortSignal.timeout(30_000));
    return { ok: true, balance, operation: service === 'legacy' ? 'QueryBalance2' : 'QueryAccountBalance' };
  } catch (err) {
    const e = toGatewayError(err);
    return { ok: false, code: e.code, status: e.status, message: e.message };
  } finally {
    await client?.close().catch(() => undefined);
  }
}
