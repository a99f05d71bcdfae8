import type { Primitive, TypeRef } from './types';

const prim = (name: Primitive): TypeRef => ({ kind: 'primitive', name });

/** Short constructors so the tables below read like the spec. */
export const t = {
  string: prim('string'),
  int: prim('int'),
  double: prim('double'),
  dateTime: prim('dateTime'),
  boolean: prim('boolean'),
  base64Binary: prim('base64Binary'),
  enum: (name: string): TypeRef => ({ kind: 'enum', name }),
  complex: (name: string): TypeRef => ({ kind: 'complex', name }),
  list: (item: TypeRef, itemElement: string): TypeRef => ({ kind: 'list', item, itemElement }),
  /** A list whose items are named after the complex type (`<dbSMSJob>`), the ASMX default. */
  listOf: (complex: string): TypeRef => ({
    kind: 'list',
    item: { kind: 'complex', name: complex },
    itemElement: complex,
  }),
  stringList: { kind: 'list', item: prim('string'), itemElement: 'string' } as TypeRef,
} as const;
