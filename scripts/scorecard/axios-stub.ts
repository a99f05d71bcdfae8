/**
 * Preloaded into `node-red-dev validate` (node -r) so it runs offline: its axios calls to the Flow Library
 * catalogue and to registry.npmjs.org are answered from a local JSON file and from the local registry stand-in
 * started by scripts/scorecard.ts. Any other URL fails loudly instead of leaving the machine.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

interface AxiosConfig {
  url?: string;
  method?: string;
}
interface AxiosLike {
  defaults: { adapter: (config: AxiosConfig) => Promise<unknown> };
}

const devDir = dirname(require.resolve('node-red-dev/package.json'));
const axios = createRequire(`${devDir}/`)('axios') as AxiosLike;
const registry = process.env.SMSGW_SCORECARD_REGISTRY ?? '';
const cataloguePath = process.env.SMSGW_SCORECARD_CATALOGUE ?? '';

axios.defaults.adapter = async (config: AxiosConfig) => {
  const url = new URL(config.url ?? '');
  const answer = (data: unknown, status = 200) => ({
    data,
    status,
    statusText: 'OK',
    headers: {},
    config,
    request: {},
  });
  if (url.hostname === 'catalogue.nodered.org') {
    return answer(JSON.parse(readFileSync(cataloguePath, 'utf8')));
  }
  if (url.hostname === 'registry.npmjs.org' && registry) {
    const res = await fetch(`${registry}${url.pathname}`);
    if (!res.ok) throw new Error(`offline registry has no ${url.pathname} (${res.status})`);
    return answer(await res.json());
  }
  throw new Error(`offline scorecard: refusing to fetch ${url.href}`);
};
