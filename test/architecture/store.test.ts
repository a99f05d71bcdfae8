/**
 * One store: no module outside src/store writes, renames or removes a file, so a new kind of state cannot bypass
 * the store's contract (durable writes, checksums, the manifest, damage and failing writes told) or its fault
 * suite. The emulator's own state file is the sandbox's, not a user's state: it is left out. Reading is allowed
 * anywhere (a CA certificate, the package's own files).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
/** What a module outside the store may take from the file system modules: reading only. */
const READS = new Set([
  'readFile',
  'readFileSync',
  'readdir',
  'readdirSync',
  'stat',
  'statSync',
  'lstat',
  'lstatSync',
  'existsSync',
  'access',
  'accessSync',
  'realpath',
  'realpathSync',
  'createReadStream',
  'constants',
  'Stats',
  'Dirent',
]);

/** The file system names a module's text takes that are not reads (or a whole module: it could do anything). */
export function fsWrites(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (FS_MODULES.has(from) && clause && !clause.isTypeOnly) {
        if (clause.name) found.push(`${from} (default import)`);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) found.push(`${from} (* as ${bindings.name.text})`);
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements) {
            const name = (el.propertyName ?? el.name).text;
            if (!el.isTypeOnly && !READS.has(name)) found.push(`${from}: ${name}`);
          }
      }
    }
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'require' &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]!) &&
      FS_MODULES.has(node.arguments[0].text)
    )
      found.push(`require('${node.arguments[0].text}')`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('architecture: one store for every state file', () => {
  it('no module outside src/store (and the emulator) writes, renames or removes files', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(SRC, f));
    assert.ok(files.length > 100, 'covers src/');
    const outside = files.filter(
      (f) => !f.startsWith(join(SRC, 'store') + '/') && !f.startsWith(join(SRC, 'emulator') + '/'),
    );
    const offenders = outside.flatMap((f) =>
      fsWrites(readFileSync(f, 'utf8')).map((w) => `${relative(ROOT, f)}: ${w}`),
    );
    assert.deepEqual(offenders, []);
    // The store itself does use them: the check looks at the right modules.
    assert.ok(fsWrites(readFileSync(join(SRC, 'store', 'fs.ts'), 'utf8')).length > 0);
  });

  it('finds a write around the store (the check itself)', () => {
    assert.deepEqual(fsWrites(`import { readFileSync } from 'node:fs';`), []);
    assert.deepEqual(fsWrites(`import type { Stats } from 'node:fs';`), []);
    assert.deepEqual(fsWrites(`import { writeFile, readFile } from 'node:fs/promises';`), [
      'node:fs/promises: writeFile',
    ]);
    assert.deepEqual(fsWrites(`import { rename as mv } from 'fs';`), ['fs: rename']);
    assert.deepEqual(fsWrites(`import * as fs from 'node:fs';`), ['node:fs (* as fs)']);
    assert.deepEqual(fsWrites(`const fs = require('fs');`), ["require('fs')"]);
  });
});
