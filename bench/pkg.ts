/**
 * The package's code as the benchmarks run it: the compiled dist/ (what users run; npm run bench builds it),
 * or src/ through tsx with BENCH_SRC=1. tsx compiles with esbuild's keepNames, which wraps every closure
 * created per call in a `__name` helper: a few % of a client call that users never pay.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const load = createRequire(__filename);
const base = join(__dirname, '..', process.env.BENCH_SRC ? 'src' : 'dist');
const from = <T>(path: string): T => load(join(base, path)) as T;

export const catalogue = from<typeof import('../src/catalogue')>('catalogue');
export const client = from<typeof import('../src/client')>('client');
export const request = from<typeof import('../src/soap/request')>('soap/request');
export const decode = from<typeof import('../src/soap/decode')>('soap/decode');
export const generic = from<typeof import('../src/generic')>('generic');
export const scanner = from<typeof import('../src/soap/xml-scanner')>('soap/xml-scanner');
export const legacy = from<typeof import('../src/soap/legacy')>('soap/legacy');
export const escape = from<typeof import('../src/soap/escape')>('soap/escape');
export const values = from<typeof import('../src/soap/values')>('soap/values');
export const emulator = from<typeof import('../src/emulator')>('emulator');
export const reliability = from<typeof import('../src/reliability')>('reliability');
export const atomicFile = from<typeof import('../src/store/durable')>('store/durable');
export const validate = from<typeof import('../src/client/validate')>('client/validate');
export const text = from<typeof import('../src/text')>('text');
