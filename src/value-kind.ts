/**
 * What a value is, with its article, for an error message a user reads: "an object", "an array", "a Map",
 * "a boolean". Judged by shape and by the built-in tag (Object.prototype.toString), never by `instanceof`, so a
 * value from a function node (another JavaScript realm) reads the same.
 */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  const name = type === 'object' ? Object.prototype.toString.call(value).slice('[object '.length, -1) : type;
  if (name === 'Object') return 'an object';
  // "an Error", "an int"; "a Uint8Array", "a Map", "a string" (a leading u sounds like "you" in these names)
  return `${/^[aeio]/i.test(name) ? 'an' : 'a'} ${name}`;
}
