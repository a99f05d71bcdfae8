/**
 * Decoding plans: the catalogue's types compiled into lookup tables the streaming decoder follows, so it
 * knows each element's type while it reads and builds plain records directly (no DOM, no second pass).
 */
import { CATALOGUE, type Catalogue } from '../catalogue';
import type { TypeRef } from '../catalogue/types';
import {
  type Reader,
  dateReader,
  readBase64,
  readBoolean,
  readDouble,
  memberReader,
  readEnum,
  readInt,
  readString,
} from './read-values';

export const PRIM = 0;
export const COMPLEX = 1;
export const LIST = 2;

/** Readers the decoder calls directly (monomorphic, inlinable); the rest go through `read`. */
export const READ_STRING = 0;
export const READ_INT = 1;
export const READ_OTHER = 2;

export interface PrimPlan {
  readonly k: typeof PRIM;
  readonly r: typeof READ_STRING | typeof READ_INT | typeof READ_OTHER;
  readonly read: Reader;
  /** The XML type's name, for warnings (`int`, `dateTime`, an enum's name such as `JobStatus`). */
  readonly type: string;
}

export interface FieldPlan {
  readonly name: string;
  readonly plan: Plan;
}

export interface ComplexPlan {
  readonly k: typeof COMPLEX;
  readonly name: string;
  readonly fields: Map<string, FieldPlan>;
  /** The same fields in declaration order: the order ASMX writes them in, tried first by the decoder. */
  readonly list: FieldPlan[];
  /** Value-type fields and what an absent element means for them (contract.ts conventions). */
  readonly defaults: ReadonlyArray<readonly [string, unknown]>;
  /** Makes an empty record of this type: a plain object (its prototype is Object.prototype). */
  readonly Record: new () => Record<string, unknown>;
}

/**
 * A constructor per record type whose objects are plain objects: V8 sizes the objects a constructor makes to the
 * fields they get (in-object slack tracking), where `{}` has room for four and moves the rest into a separate
 * array, grown three at a time (an SMSReport has twelve fields: three arrays made per record, two thrown away).
 */
function recordConstructor(): new () => Record<string, unknown> {
  const Rec = function (): void {
    // Fields are added by the decoder.
  };
  Rec.prototype = Object.prototype;
  return Rec as unknown as new () => Record<string, unknown>;
}

export interface ListPlan {
  readonly k: typeof LIST;
  readonly item: Plan;
  /** The element name of a literal list's items (`SMSReport`, `string`); encoded arrays name them freely. */
  readonly itemName: string;
}

export type Plan = PrimPlan | ComplexPlan | ListPlan;

export type Zoneless = 'utc' | 'local';

/** The value an absent element of this type stands for (undefined: leave the field out). */
export function absentValue(type: TypeRef, catalogue: Catalogue = CATALOGUE): unknown {
  if (type.kind === 'enum') return catalogue.enumType(type.name).values[0];
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'int':
    case 'double':
      return 0;
    case 'boolean':
      return false;
    case 'dateTime':
      return null;
    default:
      return undefined;
  }
}

class PlanCache {
  private readonly complex = new Map<string, ComplexPlan>();
  private readonly enums = new Map<string, PrimPlan>();
  private readonly prims: Record<string, PrimPlan>;

  constructor(
    private readonly zoneless: Zoneless,
    private readonly catalogue: Catalogue,
  ) {
    const p = (read: Reader, type: string): PrimPlan => ({
      k: PRIM,
      r: read === readString ? READ_STRING : read === readInt ? READ_INT : READ_OTHER,
      read,
      type,
    });
    this.prims = {
      string: p(readString, 'string'),
      int: p(readInt, 'int'),
      double: p(readDouble, 'double'),
      boolean: p(readBoolean, 'boolean'),
      dateTime: p(dateReader(zoneless), 'dateTime'),
      base64Binary: p(readBase64, 'base64Binary'),
    };
  }

  plan(type: TypeRef): Plan {
    switch (type.kind) {
      case 'primitive':
        return this.prims[type.name] as PrimPlan;
      case 'enum':
        return this.enumPlan(type.name);
      case 'list':
        return { k: LIST, item: this.plan(type.item), itemName: type.itemElement };
      case 'complex':
        return this.complexPlan(type.name);
    }
  }

  /**
   * A record's dateTime fields get a reader each: the reader remembers the last text it read, and the fields of
   * one record alternate (a report's Date, DoneDate, CreateDate), so one shared reader hardly ever hit.
   */
  private fieldPlan(type: TypeRef): Plan {
    if (type.kind !== 'primitive' || type.name !== 'dateTime') return this.plan(type);
    return { ...(this.prims.dateTime as PrimPlan), read: dateReader(this.zoneless) };
  }

  /** Listed names as written; an unlisted one is kept as text with a warning, but for an open enum. */
  private enumPlan(name: string): PrimPlan {
    let plan = this.enums.get(name);
    if (!plan) {
      const def = this.catalogue.enumType(name);
      const read = def.open ? readEnum : memberReader(name, def.values);
      plan = { k: PRIM, r: READ_OTHER, read, type: name };
      this.enums.set(name, plan);
    }
    return plan;
  }

  private complexPlan(name: string): ComplexPlan {
    const cached = this.complex.get(name);
    if (cached) return cached;
    const fields = new Map<string, FieldPlan>();
    const defaults: Array<readonly [string, unknown]> = [];
    const list: FieldPlan[] = [];
    const plan: ComplexPlan = { k: COMPLEX, name, fields, list, defaults, Record: recordConstructor() };
    this.complex.set(name, plan); // before the fields: recursive types terminate
    for (const f of this.catalogue.complexType(name).fields) {
      const field = { name: f.name, plan: this.fieldPlan(f.type) };
      fields.set(f.name, field);
      list.push(field);
      const d = absentValue(f.type, this.catalogue);
      if (d !== undefined) defaults.push([f.name, d]);
    }
    return plan;
  }
}

/** Plans per catalogue (types are looked up by name in it) and zoneless reading; the package's without a lookup. */
const caches = new WeakMap<Catalogue, Record<Zoneless, PlanCache | undefined>>();
const packageCaches: Record<Zoneless, PlanCache | undefined> = { utc: undefined, local: undefined };

export function planOf(type: TypeRef, zoneless: Zoneless, catalogue: Catalogue = CATALOGUE): Plan {
  let byZone = catalogue === CATALOGUE ? packageCaches : caches.get(catalogue);
  if (byZone === undefined) caches.set(catalogue, (byZone = { utc: undefined, local: undefined }));
  const cache = (byZone[zoneless] ??= new PlanCache(zoneless, catalogue));
  return cache.plan(type);
}
