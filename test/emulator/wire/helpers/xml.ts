import { SaxesParser } from 'saxes';

/** A minimal namespace-aware tree for assertions (independent of the emulator's own reader). */
export interface Node {
  name: string;
  local: string;
  uri: string;
  attrs: Record<string, string>;
  children: Node[];
  text: string;
}

export function parse(xml: string): Node {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Node[] = [];
  let root: Node | undefined;
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attrs[a.name] = a.value;
    const node: Node = { name: tag.name, local: tag.local, uri: tag.uri, attrs, children: [], text: '' };
    stack[stack.length - 1]?.children.push(node);
    root ??= node;
    stack.push(node);
  });
  parser.on('text', (t) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  });
  parser.on('closetag', () => stack.pop());
  parser.write(xml).close();
  if (!root) throw new Error('no root');
  return root;
}

export const child = (n: Node | undefined, local: string): Node | undefined =>
  n?.children.find((c) => c.local === local);

export function path(n: Node | undefined, ...locals: string[]): Node | undefined {
  let cur = n;
  for (const l of locals) cur = child(cur, l);
  return cur;
}
