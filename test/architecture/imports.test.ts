/**
 * The import graph of src/: no cycles (type-only imports count: a cycle of types is still two modules that
 * cannot be understood one without the other), the config node's types module imports no implementation, and
 * the catalogue at the bottom imports nothing above it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Relative imports and re-exports of each .ts file under `dir` (type-only ones included), as file paths. */
function importGraph(dir: string): Map<string, string[]> {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const deps: string[] = [];
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolve(dirname(file), fileName);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
      assert.ok(target, `${relative(ROOT, file)}: cannot resolve ${fileName}`);
      deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan), each as paths relative to the root. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(relative(ROOT, w));
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('architecture: imports of src/', () => {
  const graph = importGraph(SRC);

  it('form no cycle, type-only imports included', () => {
    assert.ok(graph.size > 100, 'the graph covers src/');
    assert.deepEqual(cycles(graph), []);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    const c = join(SRC, 'c.ts');
    assert.deepEqual(
      cycles(
        new Map([
          [a, [b]],
          [b, [a, c]],
          [c, []],
        ]),
      ),
      [['src/a.ts', 'src/b.ts']],
    );
  });

  it("the config node's types module imports no implementation (only types from node-red)", () => {
    const types = join(SRC, 'nodes', 'config', 'types.ts');
    assert.deepEqual(graph.get(types), []);
    const info = ts.preProcessFile(readFileSync(types, 'utf8'), true, true);
    assert.deepEqual(
      info.importedFiles.map((i) => i.fileName),
      ['node-red'],
    );
  });

  it('the catalogue imports nothing outside src/catalogue', () => {
    const outside = [...graph]
      .filter(([file]) => file.startsWith(join(SRC, 'catalogue')))
      .flatMap(([file, deps]) =>
        deps.filter((d) => !d.startsWith(join(SRC, 'catalogue'))).map((d) => `${file} → ${d}`),
      );
    assert.deepEqual(outside, []);
  });
});
