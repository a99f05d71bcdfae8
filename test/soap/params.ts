/** A fixed, deterministic parameter set per operation for the request goldens (derived from the catalogue). */
import { enumType } from '../../src/catalogue/schema';
import type { OperationDef, ParamDef } from '../../src/catalogue/types';

function sample(p: ParamDef, index: number): unknown {
  const t = p.type;
  if (p.credential === 'user') return 'demo-user';
  if (p.credential === 'password') return 'p&ss<w>rd "1"';
  switch (t.kind) {
    case 'enum':
      return p.allowed?.[p.allowed.length - 1] ?? enumType(t.name).values[1];
    case 'list':
      return ['+4917012345', '+49 170 & <9>'];
    case 'complex':
      throw new Error('no complex parameters');
    default:
      switch (t.name) {
        case 'string':
          return `${p.name} äö€ <&> ${index}`;
        case 'int':
          return 40 + index;
        case 'double':
          return 12.5;
        case 'boolean':
          return true;
        case 'dateTime':
          return new Date(Date.UTC(2026, 10, 22, 10, 0, index));
        case 'base64Binary':
          return Buffer.from([0, 1, 2, 254, 255]);
      }
  }
}

/** Required parameters get a sample value; optional ones are left out (so the goldens show omission/defaults). */
export function goldenParams(op: OperationDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  op.params.forEach((p, i) => {
    if (!p.optional || p.credential) out[p.name] = sample(p, i);
  });
  return out;
}
