/**
 * Judging a value by its shape, never by `instanceof` or its prototype. A msg can come from a Node-RED function
 * node, which runs in its own JavaScript realm (a vm context): its `{}` has that realm's Object.prototype, its
 * `new Uint8Array()` that realm's Uint8Array, and `instanceof` here says no to both. The checks below ask the
 * value itself (brand checks that hold across realms) and are used everywhere a value from a msg or a caller is
 * read. ESLint refuses `instanceof Date|Object|Array|Buffer|Uint8Array`, `Buffer.isBuffer` and comparisons with
 * `Object.prototype` in src/ (eslint.config.mjs), so no check of the other kind comes back.
 */

const toStringTag = Object.prototype.toString;
const getTime = Date.prototype.getTime;
/** %TypedArray%.prototype[@@toStringTag]: the element type of any realm's typed array, undefined otherwise. */
const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  Symbol.toStringTag,
)!.get as (this: unknown) => string | undefined;

/**
 * An object made as `{}`, `Object.create(null)` or by JSON.parse, in any realm: its prototype is null or some
 * realm's Object.prototype (whose own prototype is null). Class instances, Maps, Dates, arrays and Buffers are not.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  if (proto === null) return true;
  return Object.getPrototypeOf(proto) === null && toStringTag.call(v) === '[object Object]';
}

/**
 * A Date of any realm: Date.prototype.getTime accepts exactly those (a look-alike object is not one). The tag is
 * asked first so that the common case, any other object, costs no exception.
 */
export function isDate(v: unknown): v is Date {
  if (typeof v !== 'object' || v === null || toStringTag.call(v) !== '[object Date]') return false;
  try {
    getTime.call(v);
    return true;
  } catch {
    return false;
  }
}

/** A Uint8Array (a Buffer is one) of any realm. */
export function isBytes(v: unknown): v is Uint8Array {
  return ArrayBuffer.isView(v) && typedArrayName.call(v) === 'Uint8Array';
}

/** The bytes of any realm's Uint8Array as a Buffer of this realm, without a copy. */
export function bytesOf(v: Uint8Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** The time of any realm's Date (NaN for an invalid one). */
export function timeOf(d: Date): number {
  return getTime.call(d);
}
