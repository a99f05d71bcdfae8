/**
 * The deploy-time preloads run in a setImmediate, where a throw would end Node-RED: a library that cannot be
 * loaded (a damaged install) must surface as the failing call's error instead.
 */
import assert from 'node:assert/strict';
import Module from 'node:module';
import { preloadGeneric } from '../../src/client/preload';

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;
const mod = Module as unknown as { _load: Load };

/** Fresh copies of the preload and invoke modules, with `../generic` failing to load as a damaged install would. */
function withBrokenGeneric<T>(
  run: (m: typeof import('../../src/client/preload'), load: () => unknown) => T,
): T {
  const files = ['../../src/client/preload', '../../src/client/invoke'].map((f) => require.resolve(f));
  const kept = files.map((f) => require.cache[f]);
  for (const f of files) delete require.cache[f];
  const real = mod._load;
  mod._load = function (request, parent, isMain) {
    if (request === '../generic') throw new Error("Cannot find module 'xmlbuilder2'");
    return real.call(this, request, parent, isMain);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy, on purpose
    const preload = require('../../src/client/preload') as typeof import('../../src/client/preload');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the same fresh copy preload uses
    const invoke = require('../../src/client/invoke') as typeof import('../../src/client/invoke');
    return run(preload, () => invoke.loadGeneric());
  } finally {
    mod._load = real;
    files.forEach((f, i) => {
      if (kept[i]) require.cache[f] = kept[i];
      else delete require.cache[f];
    });
  }
}

describe('client: deploy-time preloads', () => {
  it('preloadGeneric does not throw when the generic libraries cannot be loaded; the call that needs them does', () => {
    withBrokenGeneric((preload, load) => {
      assert.doesNotThrow(() => preload.preloadGeneric());
      assert.throws(load, /Cannot find module 'xmlbuilder2'/);
    });
  });

  it('preloadGeneric loads them when they can be (at deploy, not in the first call)', () => {
    preloadGeneric();
    assert.ok(require.cache[require.resolve('../../src/generic')], 'the generic path is loaded');
  });
});
