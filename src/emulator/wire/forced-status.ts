/**
 * Service statuses on demand (see docs/emulator.md): the next `count` calls that can carry the status answer
 * with it instead of being performed. The emulator's own rules never give a LoginStatus DatabaseError, a
 * CreateStatus LoginError or a ParseStatus MMSXMLParseError; a client and its flows must still be tested
 * against them. The answer is built from the catalogue (which field of the result holds which enumeration),
 * so any backend gets it and the wire writes it as it writes every other answer.
 */
import { CATALOGUE, type Catalogue, type OperationDef } from '../../catalogue';
import { CountedQueue } from './counted-queue';

export type StatusEnum = 'LoginStatus' | 'CreateStatus' | 'ParseStatus';

export const STATUS_ENUMS: readonly StatusEnum[] = ['LoginStatus', 'CreateStatus', 'ParseStatus'];

export interface ForcedStatusSpec {
  /** Which enumeration: LoginStatus (the envelope's StatusCode), CreateStatus or ParseStatus (inside Value). */
  enum: StatusEnum;
  /** A member of that enumeration other than `Ok`. */
  value: string;
  /** How many matching calls answer with it (default 1). */
  count?: number;
  /** Only calls of this operation name (default: any operation whose answer can carry the status). */
  operation?: string;
}

export interface ForcedStatus {
  readonly enum: StatusEnum;
  readonly value: string;
  remaining: number;
  readonly operation: string | undefined;
}

/** The envelope type of a typed operation (one envelope, or each entry of a list of them); none for legacy. */
function envelopeOf(op: OperationDef): string | undefined {
  if (op.service === 'legacy') return undefined;
  const t = op.result.type;
  if (t.kind === 'complex') return t.name;
  return t.kind === 'list' && t.item.kind === 'complex' ? t.item.name : undefined;
}

/** The field of the operation's Value that holds `name`, '' for the envelope's StatusCode, undefined if none. */
function fieldOf(op: OperationDef, name: StatusEnum, catalogue: Catalogue): string | undefined {
  const envelope = envelopeOf(op);
  if (envelope === undefined) return undefined;
  if (name === 'LoginStatus') return '';
  const value = catalogue.complexTypes[envelope]?.fields.find((f) => f.name === 'Value')?.type;
  if (value?.kind !== 'complex') return undefined;
  const field = catalogue.complexTypes[value.name]?.fields.find(
    (f) => f.type.kind === 'enum' && f.type.name === name,
  );
  return field?.name;
}

/** The result object the backend would have returned with this status (value-type fields at their default). */
function answerOf(op: OperationDef, status: ForcedStatus, catalogue: Catalogue): unknown {
  const field = fieldOf(op, status.enum, catalogue);
  const envelope = field
    ? { StatusCode: 'Ok', Value: { [field]: status.value } }
    : { StatusCode: status.value };
  return op.result.type.kind === 'list' ? [envelope] : envelope;
}

export class StatusForcer {
  private readonly queue = new CountedQueue<ForcedStatus>();

  /** `catalogue`: where the results' types are defined (default: the package's). */
  constructor(private readonly catalogue: Catalogue = CATALOGUE) {}

  /** Validates and queues; throws a TypeError with a readable message on bad input. */
  add(spec: ForcedStatusSpec): ForcedStatus {
    if (!STATUS_ENUMS.includes(spec.enum))
      throw new TypeError(`enum must be one of ${STATUS_ENUMS.join(', ')}`);
    const members = this.catalogue.enumType(spec.enum).values.filter((v) => v !== 'Ok');
    if (!members.includes(spec.value))
      throw new TypeError(`value must be a ${spec.enum} other than Ok: ${members.join(', ')}`);
    const count = spec.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new TypeError('count must be a positive integer');
    if (spec.operation !== undefined && typeof spec.operation !== 'string')
      throw new TypeError('operation must be a string');
    return this.queue.push({
      enum: spec.enum,
      value: spec.value,
      remaining: count,
      operation: spec.operation,
    });
  }

  list(): ForcedStatus[] {
    return this.queue.list();
  }

  clear(): void {
    this.queue.clear();
  }

  /**
   * The forced answer for this call, consuming one use of the first queued status this operation can carry;
   * undefined when none applies (the call is performed as usual).
   */
  take(op: OperationDef): unknown {
    const status = this.queue.take(
      (s) =>
        (s.operation === undefined || s.operation === op.name) &&
        fieldOf(op, s.enum, this.catalogue) !== undefined,
    );
    return status === undefined ? undefined : answerOf(op, status, this.catalogue);
  }
}
