/**
 * What a decoder reads past instead of failing the whole answer (docs/assumptions.md, "Tolerant decoding"):
 * a value that does not fit its declared type (kept as its raw text) or an element the catalogue does not know
 * (skipped, as XmlSerializer skips it). One odd value must never cost the other records of a page.
 */
export interface DecodeWarning {
  /** `value`: kept as its raw text; `element`: an unknown element, skipped; `record`: a legacy record kept raw. */
  kind: 'value' | 'element' | 'record';
  service: string;
  operation: string;
  /** Where: `SMSReport.DoneDateTimeZoneOffset`, `SOAPResponseOfListOfSMSReport.Value/Other`, `jobs.cost`. */
  field: string;
  /** The raw text of the value (at most 200 characters), or the unknown element's name. */
  value: string;
  /** The declared type of a `value` warning (`int`, `dateTime`, ...). */
  type?: string | undefined;
  /** One readable line naming the operation, the field and the value. */
  message: string;
}

export type WarningSink = (warning: DecodeWarning) => void;

const MAX_VALUE = 200;
const quote = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/** Reports each kind and field once per answer: a page of 5,000 records with the same odd field warns once. */
export class WarnOnce {
  private seen: Set<string> | null = null;

  constructor(
    private readonly sink: WarningSink | undefined,
    private readonly service: string,
    private readonly operation: string,
  ) {}

  get active(): boolean {
    return this.sink !== undefined;
  }

  oddValue(field: string, value: string, type: string): void {
    if (!this.first('v', field)) return;
    this.emit({
      kind: 'value',
      field,
      value: value.slice(0, MAX_VALUE),
      type,
      message: `${this.operation}: ${field} = ${quote(value)} is not a valid ${type}; kept as text`,
    });
  }

  unknownElement(where: string, name: string): void {
    if (!this.first('e', `${where}/${name}`)) return;
    this.emit({
      kind: 'element',
      field: `${where}/${name}`,
      value: name,
      message: `${this.operation}: unknown element <${name}> in ${where} skipped`,
    });
  }

  oddRecord(field: string, value: string, why: string): void {
    if (!this.first('r', field)) return;
    this.emit({
      kind: 'record',
      field,
      value: value.slice(0, MAX_VALUE),
      message: `${this.operation}: ${field} ${quote(value)} ${why}; kept as raw text`,
    });
  }

  private first(kind: string, field: string): boolean {
    if (!this.sink) return false;
    const key = `${kind}\u0000${field}`;
    this.seen ??= new Set();
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  private emit(w: Omit<DecodeWarning, 'service' | 'operation'>): void {
    try {
      this.sink?.({ service: this.service, operation: this.operation, ...w });
    } catch {
      // A listener's failure must not fail the answer.
    }
  }
}
