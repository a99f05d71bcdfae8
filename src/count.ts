/**
 * A count as people read it in a message: "250,000". Not `toLocaleString('en-US')`: its first call in a process
 * sets up ICU's number formatting, 25-60 ms that block the event loop (more on a busy machine), and the counts
 * written here are mostly in errors raised while a hostile answer or a huge text is refused.
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** "1 item", "3 items", "1 entry" / "2 entries": a count with its noun, never "item(s)". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
