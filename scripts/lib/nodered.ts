import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv, start, waitForHttp, type Started } from './proc';

export interface NodeRedOptions {
  /** Directory holding node-red's package.json (node_modules/node-red of some prefix). */
  nodeRedDir: string;
  /** The node binary to run it with. */
  nodeBin: string;
  userDir: string;
  port: number;
  /** Start from an empty flow file (tests); the sandbox keeps the user's flows. */
  freshFlows?: boolean;
  logFile?: string;
  echo?: boolean;
  /** Extra settings merged into settings.js (plain JSON values). */
  settings?: Record<string, unknown>;
  /** Extra environment variables for the Node-RED process (flows read them with env.get). */
  env?: Record<string, string>;
}

export interface RunningNodeRed {
  url: string;
  proc: Started;
}

/** Writes settings.js for a quiet, local, tour-free editor (see docs: telemetry modal would block clicks). */
export function writeSettings(userDir: string, port: number, extra: Record<string, unknown> = {}): void {
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: 'smsgw-sandbox-secret',
    telemetry: { enabled: false, updateNotification: false },
    editorTheme: { tours: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    ...extra,
  };
  writeFileSync(
    join(userDir, 'settings.js'),
    `// Written by scripts/lib/nodered.ts for the local sandbox and tests.\nmodule.exports = ${JSON.stringify(settings, null, 2)};\n`,
  );
}

export async function startNodeRed(o: NodeRedOptions): Promise<RunningNodeRed> {
  mkdirSync(o.userDir, { recursive: true });
  if (o.freshFlows) {
    for (const f of [
      'flows.json',
      'flows_cred.json',
      '.flows.json.backup',
      '.flows_cred.json.backup',
      '.config.runtime.json',
    ]) {
      rmSync(join(o.userDir, f), { force: true });
    }
  }
  writeSettings(o.userDir, o.port, o.settings);
  const redJs = join(o.nodeRedDir, 'red.js');
  if (!existsSync(redJs)) throw new Error(`no Node-RED at ${o.nodeRedDir}`);
  const proc = start(
    o.nodeBin,
    [redJs, '--userDir', o.userDir, '--settings', join(o.userDir, 'settings.js')],
    {
      cwd: o.userDir,
      env: childEnv(o.env),
      ...(o.logFile ? { logFile: o.logFile } : {}),
      ...(o.echo ? { echoPrefix: '[node-red] ' } : {}),
    },
  );
  const url = `http://127.0.0.1:${o.port}`;
  try {
    // With adminAuth /settings wants a token; /auth/login answers anyone.
    const probe = o.settings?.adminAuth ? '/auth/login' : '/settings';
    await waitForHttp(`${url}${probe}`, 60000, () => proc.alive());
  } catch (e) {
    await proc.stop();
    throw new Error(`${(e as Error).message}\n${proc.output()}`, { cause: e });
  }
  return { url, proc };
}

/** Replaces all flows (full deploy). Config nodes may carry inline `credentials`; Node-RED stores them encrypted. */
export async function deployFlows(
  url: string,
  flows: unknown[],
  headers: Record<string, string> = {},
): Promise<void> {
  const res = await fetch(`${url}/flows`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  if (!res.ok) throw new Error(`POST /flows answered ${res.status}: ${await res.text()}`);
}

export interface NodeSet {
  id: string;
  name: string;
  types: string[];
  enabled: boolean;
  loaded?: boolean;
  module: string;
  err?: string;
}

export async function getNodeSets(url: string, moduleName: string): Promise<NodeSet[]> {
  const res = await fetch(`${url}/nodes`, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET /nodes answered ${res.status}`);
  return ((await res.json()) as NodeSet[]).filter((s) => s.module === moduleName);
}
