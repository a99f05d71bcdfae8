import { ensureChromium } from './browser';

/** Mocha root hooks (see test/e2e/.mocharc.json): a missing Chromium is installed once, with time to do it. */
export const mochaHooks = {
  beforeAll(this: Mocha.Context): void {
    this.timeout(600000);
    ensureChromium();
  },
};
