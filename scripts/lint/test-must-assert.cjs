/**
 * ESLint rule `tests/must-assert`: every mocha `it(...)` must assert something, so a test that only logs (or
 * only runs code) fails `npm run lint` instead of passing forever.
 *
 * A test asserts when its callback (nested callbacks included) calls
 * - `assert(...)`, `assert.<anything>(...)` (node:assert), or
 * - a function whose name starts with `assert` or `expect` (`assertGolden(...)`, `helpers.expectRejects(...)`), or
 * - a function declared in the same file, or imported from a relative module, whose body does one of these
 *   (followed through further same-file calls and relative imports).
 * A test without a callback (mocha's "pending") is reported too.
 */
'use strict';
const { readFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const tseslint = require('typescript-eslint');

const ASSERT_NAME = /^(assert|expect)/;
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** `assert` for `assert(...)` and `assert.x.y(...)`; else the called name (`f` of `f()` and of `a.b.f()`). */
const calleeName = (callee) => {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type !== 'MemberExpression') return undefined;
  let root = callee.object;
  while (root.type === 'MemberExpression') root = root.object;
  if (root.type === 'Identifier' && root.name === 'assert') return 'assert';
  return !callee.computed && callee.property.type === 'Identifier' ? callee.property.name : undefined;
};

/** Every node below `root` (children only: the keys ESTree nodes carry, not `parent`). */
function* walk(root) {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    yield node;
    for (const key of Object.keys(node)) {
      if (key === 'parent' || key === 'loc' || key === 'range') continue;
      const v = node[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c.type === 'string') stack.push(c);
      } else if (v && typeof v.type === 'string') stack.push(v);
    }
  }
}

/**
 * What one module declares at its top level: functions by name, and imports by local name
 * (`{ from, imported }`), so a call can be followed to its body.
 */
class ModuleIndex {
  constructor(file, program) {
    this.file = file;
    this.functions = new Map();
    this.imports = new Map();
    for (const stmt of program.body)
      this.add(stmt.type.startsWith('Export') && stmt.declaration ? stmt.declaration : stmt);
  }

  add(stmt) {
    if (!stmt) return;
    if (stmt.type === 'FunctionDeclaration' && stmt.id) this.functions.set(stmt.id.name, stmt);
    if (stmt.type === 'VariableDeclaration') {
      for (const d of stmt.declarations) {
        if (d.id.type === 'Identifier' && d.init && FUNCTION_TYPES.has(d.init.type))
          this.functions.set(d.id.name, d.init);
      }
    }
    if (
      stmt.type === 'ImportDeclaration' &&
      typeof stmt.source.value === 'string' &&
      stmt.source.value.startsWith('.')
    ) {
      for (const s of stmt.specifiers) {
        if (s.type === 'ImportSpecifier') {
          const imported = s.imported.type === 'Identifier' ? s.imported.name : String(s.imported.value);
          this.imports.set(s.local.name, { from: stmt.source.value, imported });
        }
      }
    }
  }
}

const indexCache = new Map();

function indexOf(file) {
  if (indexCache.has(file)) return indexCache.get(file);
  let index;
  try {
    index = new ModuleIndex(
      file,
      tseslint.parser.parseForESLint(readFileSync(file, 'utf8'), { sourceType: 'module' }).ast,
    );
  } catch {
    index = undefined;
  }
  indexCache.set(file, index);
  return index;
}

function resolveModule(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  }
  return undefined;
}

/**
 * Decides whether a function body asserts; memoized per function node, cycles count as "no". In the linted file,
 * called names are resolved through ESLint's scopes (helpers declared inside a describe count too); in imported
 * modules, through their top-level declarations.
 */
class AssertFinder {
  constructor(sourceCode, index) {
    this.sourceCode = sourceCode;
    this.index = index;
    this.memo = new WeakMap();
  }

  bodyAsserts(fn, index) {
    if (this.memo.has(fn)) return this.memo.get(fn);
    this.memo.set(fn, false);
    let found = false;
    for (const node of walk(fn.body ?? fn)) {
      if (node.type !== 'CallExpression') continue;
      const name = calleeName(node.callee);
      if (name === undefined) continue;
      if (
        ASSERT_NAME.test(name) ||
        (node.callee.type === 'Identifier' && this.callAsserts(node, name, index))
      ) {
        found = true;
        break;
      }
    }
    this.memo.set(fn, found);
    return found;
  }

  callAsserts(call, name, index) {
    if (index === this.index) {
      const local = this.resolveLocal(call, name);
      if (local) return this.bodyAsserts(local, index);
    } else {
      const local = index?.functions.get(name);
      if (local) return this.bodyAsserts(local, index);
    }
    const imp = index?.imports.get(name);
    if (!imp) return false;
    const file = resolveModule(index.file, imp.from);
    const target = file ? indexOf(file) : undefined;
    const fn = target?.functions.get(imp.imported);
    return fn ? this.bodyAsserts(fn, target) : false;
  }

  /** The function a name refers to at the call site in the linted file (declaration or `const f = () => ...`). */
  resolveLocal(call, name) {
    for (let scope = this.sourceCode.getScope(call); scope; scope = scope.upper) {
      const variable = scope.set.get(name);
      if (!variable) continue;
      for (const def of variable.defs) {
        if (def.type === 'FunctionName') return def.node;
        if (def.type === 'Variable' && def.node.init && FUNCTION_TYPES.has(def.node.init.type))
          return def.node.init;
      }
      return undefined;
    }
    return undefined;
  }
}

const isItCall = (node) => {
  const c = node.callee;
  if (c.type === 'Identifier') return c.name === 'it';
  return c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'it';
};

const mustAssert = {
  meta: {
    type: 'problem',
    docs: { description: 'every mocha it() must assert (assert.*, expect*/assert* helpers)' },
    schema: [],
    messages: {
      noAssertion:
        'This test asserts nothing: call assert.* (or an assert*/expect* helper) so it can fail when the behaviour breaks.',
      pending: 'This test has no body (pending): write it or remove it.',
    },
  },
  create(context) {
    const file = context.filename;
    const index = new ModuleIndex(file, context.sourceCode.ast);
    const finder = new AssertFinder(context.sourceCode, index);
    return {
      CallExpression(node) {
        if (!isItCall(node)) return;
        const fn = [...node.arguments].reverse().find((a) => FUNCTION_TYPES.has(a.type));
        if (!fn) {
          context.report({ node, messageId: 'pending' });
          return;
        }
        if (!finder.bodyAsserts(fn, index)) context.report({ node, messageId: 'noAssertion' });
      },
    };
  },
};

module.exports = { rules: { 'must-assert': mustAssert }, mustAssert };
