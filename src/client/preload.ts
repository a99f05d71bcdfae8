/**
 * What a client's first call would load, loaded now. A require is synchronous: undici takes ~250 ms (several
 * times that on a busy machine) and libphonenumber-js, with a default country, ~100 ms, during which nothing else
 * in the process runs. In Node-RED that was the first msg of a flow blocking every other flow: the largest part
 * of the 0.5-0.75 s an unrelated endpoint waited while the 23 MB hostile answer was refused. The
 * config node calls this at deploy (src/nodes/smsgw-config.ts); the libraries still load only where the package
 * is used, not when Node-RED requires the node modules at start.
 */
import { loadTransport } from '../transport';
import { defaultCountryOf } from './recipients';
import { loadGeneric } from './invoke';

export function preloadClient(defaultCountry?: string): void {
  // Called from a setImmediate, where a throw would end Node-RED: what fails here fails again as an error of the
  // call that needs it (a default country that is not one: CONFIG on each call that needs it).
  try {
    loadTransport();
    defaultCountryOf(defaultCountry);
  } catch {
    // reported by the call (see above)
  }
}

/**
 * The generic path's libraries (xmlbuilder2 alone ~120 ms), loaded at deploy by the any-operation node. Called from
 * a setImmediate as preloadClient is: a require that fails (a damaged install) must not end Node-RED; the call that
 * needs the library fails with it instead, as an error of that msg.
 */
export function preloadGeneric(): void {
  try {
    loadGeneric();
  } catch {
    // reported by the call (see above)
  }
}
