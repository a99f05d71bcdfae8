/**
 * Preloaded (node -r) into the node tests of the version matrix: makes `require('node-red')`,
 * `require.resolve('node-red')` and `@node-red/*` from our code and the test helper resolve to the Node-RED in
 * SMSGW_NODERED_PREFIX (a cache prefix such as .cache/node-red-5) instead of the project's devDependency.
 */
import Module from 'node:module';
import { join } from 'node:path';

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
const prefix = process.env.SMSGW_NODERED_PREFIX;
if (prefix) {
  const nodeModules = join(prefix, 'node_modules');
  const M = Module as unknown as { _resolveFilename: Resolve };
  const original = M._resolveFilename;
  let announced = false;
  M._resolveFilename = function (this: unknown, request, parent, isMain, options) {
    const ours =
      request === 'node-red' || request.startsWith('node-red/') || request.startsWith('@node-red/');
    const from = (parent as { filename?: string } | undefined)?.filename ?? '';
    if (ours && !from.startsWith(nodeModules)) {
      const file = original.call(this, request, parent, isMain, { paths: [prefix] });
      if (!announced && request === 'node-red') {
        announced = true;
        process.stderr.write(`[matrix] node-red resolves to ${file}\n`);
      }
      return file;
    }
    return original.call(this, request, parent, isMain, options);
  };
}
