/**
 * The state file layout of the version before checksums (JSON, one value per line), as that version wrote it:
 * the store still reads such files (test/nodes/state-text.test.ts, test/nodes/state-file.test.ts).
 */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as JSON.stringify sees it (its toJSON applied: a Date, a Map-backed set of seen ids). */
function plain(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(value, key) : value;
}

/** The state as the version before checksums wrote it. */
export function legacyStateText(state: object): string {
  const members: Array<[string, unknown]> = [];
  for (const [key, raw] of Object.entries(plain(state, '') as Record<string, unknown>)) {
    const value = plain(raw, key);
    // As JSON.stringify leaves them out.
    if (value !== undefined && typeof value !== 'function' && typeof value !== 'symbol')
      members.push([key, value]);
  }
  let out = '{\n';
  members.forEach(([key, value], i) => {
    const comma = i < members.length - 1 ? ',' : '';
    const name = JSON.stringify(key);
    const array = Array.isArray(value);
    const items = array ? (value as unknown[]) : isPlainObject(value) ? Object.keys(value) : undefined;
    if (items === undefined || items.length === 0) {
      out += `${name}:${JSON.stringify(value)}${comma}\n`;
      return;
    }
    out += `${name}:${array ? '[' : '{'}\n`;
    const last = items.length - 1;
    if (array)
      // An item JSON leaves out (undefined, a function) is null in an array, as JSON.stringify writes it.
      for (let j = 0; j <= last; j++) out += `${JSON.stringify(items[j]) ?? 'null'}${j < last ? ',' : ''}\n`;
    else {
      const o = value as Record<string, unknown>;
      let first = true;
      for (let j = 0; j <= last; j++) {
        const k = items[j] as string;
        const v = JSON.stringify(o[k]);
        if (v === undefined) continue;
        out += `${first ? '' : ',\n'}${JSON.stringify(k)}:${v}`;
        first = false;
      }
      out += '\n';
    }
    out += `${array ? ']' : '}'}${comma}\n`;
  });
  return out + '}\n';
}
