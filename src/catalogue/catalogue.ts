/**
 * One catalogue as a value: the operations and the types they use, with the lookups every layer needs. The
 * package's own catalogue (`CATALOGUE` in index.ts) is the default wherever one is taken; passing another (a
 * copy with an operation of your own, a test's made-up one) reaches the same code paths without touching them.
 */
import type { ComplexTypeDef, EnumDef, OperationDef, ServiceName } from './types';

/** The tables a catalogue is made of. */
export interface CatalogueTables {
  /** Every operation, in the order lists, menus, WSDLs and docs show them. */
  readonly operations: readonly OperationDef[];
  readonly enums: Readonly<Record<string, EnumDef>>;
  /** Complex types, the `SOAPResponseOf...` envelopes included, by name. */
  readonly complexTypes: Readonly<Record<string, ComplexTypeDef>>;
}

export interface Catalogue extends CatalogueTables {
  /** The operation of a service by its exact name, or undefined. */
  find(service: ServiceName, name: string): OperationDef | undefined;
  /** The operations of one service, in catalogue order. */
  of(service: ServiceName): readonly OperationDef[];
  /** A complex type by name; throws for a name the catalogue lacks. */
  complexType(name: string): ComplexTypeDef;
  /** An enumeration by name; throws for a name the catalogue lacks. */
  enumType(name: string): EnumDef;
}

/** The `service/Name` key of an operation (node menus, persisted outbox entries, error texts). */
export const operationKey = (op: Pick<OperationDef, 'service' | 'name'>): string =>
  `${op.service}/${op.name}`;

export function createCatalogue(tables: CatalogueTables): Catalogue {
  const { operations, enums, complexTypes } = tables;
  const byKey = new Map<string, OperationDef>();
  const byService = new Map<ServiceName, OperationDef[]>();
  for (const op of operations) {
    const key = operationKey(op);
    if (byKey.has(key)) throw new Error(`the catalogue lists ${key} twice`);
    // A job the gateway creates is charged or reaches a phone: only the send gate may call it.
    if (op.sends === true && op.costs !== true)
      throw new Error(`the catalogue lists ${key} as creating a job (sends) but not as costing (costs)`);
    byKey.set(key, op);
    let list = byService.get(op.service);
    if (!list) byService.set(op.service, (list = []));
    list.push(op);
  }
  const none: readonly OperationDef[] = Object.freeze([]);
  for (const list of byService.values()) Object.freeze(list);
  return Object.freeze({
    operations,
    enums,
    complexTypes,
    find: (service: ServiceName, name: string) => byKey.get(`${service}/${name}`),
    of: (service: ServiceName) => byService.get(service) ?? none,
    complexType(name: string): ComplexTypeDef {
      const def = Object.hasOwn(complexTypes, name) ? complexTypes[name] : undefined;
      if (!def) throw new Error(`unknown complex type ${name}`);
      return def;
    },
    enumType(name: string): EnumDef {
      const def = Object.hasOwn(enums, name) ? enums[name] : undefined;
      if (!def) throw new Error(`unknown enum ${name}`);
      return def;
    },
  });
}
