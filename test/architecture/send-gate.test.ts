/**
 * One door for money: no module of the nodes (nor of the reliability and coordination layers they build on) calls
 * an operation that costs money or reaches a phone (catalogue `costs`) around the send gate, src/nodes/send/gate.ts.
 * Read with TypeScript's type checker, so an alias (`const c = cfg.getClient(); c.invoke(...)`) is the call it
 * stands for. A module fails when it:
 *   - calls the client's invoke() or call() (any target and name can be a marked one at run time);
 *   - names a typed method of a marked operation (sendSms, sendText, smscr, ...), called, destructured or as a key;
 *   - looks a typed method up by a name it builds (methodName, an index that is not a literal, or a cast that hides
 *     the client's types), except the two lookups that check the mark: the gate's and config/gateway.ts's, which
 *     refuses a marked operation at run time;
 *   - hands a message to the outbox (Outbox.submit) or builds the outbox's sender (clientSender) elsewhere than
 *     the gate and the host that puts the spending guard in front of that sender;
 *   - passes a marked operation written out (`operationOf('send/SendSMS')`) to callOperation.
 * A new node is read as soon as its file exists. test/nodes/gate.test.ts proves the other half at run time: every
 * marked operation, from every node that reaches it, is refused with BUDGET on a cap of 0.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import { CATALOGUE, methodName } from '../../src/catalogue';
import { callOperation } from '../../src/nodes/config/gateway';
import { GatewayError } from '../../src/errors';
import type { GatewayClient } from '../../src/client';

const ROOT = join(__dirname, '..', '..');
const SCANNED = ['src/nodes', 'src/reliability', 'src/coordination'];

const MARKED = CATALOGUE.operations.filter((op) => op.costs === true);
const MARKED_METHODS = new Set(MARKED.map((op) => methodName(op)));
const MARKED_KEYS = new Set(MARKED.map((op) => `${op.service}/${op.name}`));

type Rule = 'invoke/call' | 'typed method' | 'method lookup' | 'outbox' | 'callOperation';

/** Where each kind of access is allowed, and why. */
const ALLOWED: Record<Rule, Record<string, string>> = {
  'invoke/call': { 'src/nodes/send/gate.ts': 'the send gate (the any-operation node calls it)' },
  'typed method': {},
  'method lookup': {
    'src/nodes/send/gate.ts': 'the send gate looks up the marked operations',
    'src/nodes/config/gateway.ts':
      'callOperation: operations that cost nothing; refuses marked ones at run time',
    'src/reliability/client-sender.ts':
      "the outbox's sender, behind the spending guard (reliability-host.ts)",
  },
  outbox: {
    'src/nodes/send/gate.ts': 'the send gate hands messages to the outbox (step 5)',
    'src/nodes/config/reliability-host.ts': "builds the outbox's sender behind the spending guard",
  },
  callOperation: {},
};

const CLIENT_TYPES = /^(GatewayClient|InformationMethods|SendMethods|CustomerMethods|LegacyMethods)$/;

function sourceFiles(): string[] {
  return SCANNED.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(ROOT, dir, f)),
  );
}

function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT).options;
}

/** The files' program; `extra` adds made-up modules (path → source) for the check's own test. */
function programOf(files: string[], extra: Record<string, string> = {}): ts.Program {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name in extra ? ts.createSourceFile(name, extra[name]!, lang, true) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in extra || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => extra[name] ?? readFile(name);
  return ts.createProgram([...files, ...Object.keys(extra)], options, host);
}

const declarationOf = (checker: ts.TypeChecker, node: ts.Node): ts.Declaration | undefined => {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.[0];
};

const inFile = (decl: ts.Declaration | undefined, file: string): boolean =>
  decl !== undefined && relative(ROOT, decl.getSourceFile().fileName) === file;

/** The class or interface a member is declared in. */
const ownerOf = (decl: ts.Declaration): string | undefined => {
  const parent = decl.parent;
  return (ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent)) && parent.name
    ? parent.name.text
    : undefined;
};

const typeName = (checker: ts.TypeChecker, node: ts.Expression): string | undefined => {
  const type = checker.getTypeAtLocation(node);
  return (type.aliasSymbol ?? type.getSymbol())?.getName();
};

/** The catalogue key an operation argument names when it is written out: operationOf('send/SendSMS'), ... */
function writtenOperation(checker: ts.TypeChecker, arg: ts.Expression, depth = 0): string | undefined {
  if (ts.isNonNullExpression(arg)) return writtenOperation(checker, arg.expression, depth);
  if (ts.isIdentifier(arg) && depth < 3) {
    const decl = declarationOf(checker, arg);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer)
      return writtenOperation(checker, decl.initializer, depth + 1);
    return undefined;
  }
  if (!ts.isCallExpression(arg)) return undefined;
  const texts = arg.arguments.map((a) => (ts.isStringLiteralLike(a) ? a.text : undefined));
  const callee = arg.expression.getText();
  if (/operationOf$/.test(callee) && texts[0]) return texts[0];
  if (/findOperation$|\.find$/.test(callee) && texts[0] && texts[1]) return `${texts[0]}/${texts[1]}`;
  return undefined;
}

interface Finding {
  file: string;
  line: number;
  rule: Rule;
  text: string;
}

function findings(program: ts.Program, files: readonly string[]): Finding[] {
  const checker = program.getTypeChecker();
  const out: Finding[] = [];
  for (const path of files) {
    const sf = program.getSourceFile(path);
    assert.ok(sf, `${path} is in the program`);
    const file = relative(ROOT, path);
    const report = (node: ts.Node, rule: Rule): void => {
      if (ALLOWED[rule][file] !== undefined) return;
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      out.push({ file, line, rule, text: node.getText(sf).slice(0, 80) });
    };
    const visit = (node: ts.Node): void => {
      // A marked operation's typed method, by its name anywhere (a call, a destructuring, a key, a string).
      if ((ts.isIdentifier(node) || ts.isStringLiteralLike(node)) && MARKED_METHODS.has(node.text))
        report(node, 'typed method');
      if (ts.isIdentifier(node) && node.text === 'methodName' && !ts.isImportSpecifier(node.parent))
        report(node, 'method lookup');
      if (ts.isCallExpression(node)) {
        const decl = declarationOf(
          checker,
          ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression,
        );
        const name = decl ? ts.getNameOfDeclaration(decl)?.getText() : undefined;
        if (decl && inFile(decl, 'src/client/client.ts') && ownerOf(decl) === 'GatewayClient')
          if (name === 'invoke' || name === 'call') report(node, 'invoke/call');
        if (
          decl &&
          inFile(decl, 'src/reliability/outbox.ts') &&
          ownerOf(decl) === 'Outbox' &&
          name === 'submit'
        )
          report(node, 'outbox');
        if (decl && inFile(decl, 'src/reliability/client-sender.ts') && name === 'clientSender')
          report(node, 'outbox');
        if (decl && inFile(decl, 'src/nodes/config/gateway.ts') && name === 'callOperation') {
          const key = node.arguments[1] ? writtenOperation(checker, node.arguments[1]) : undefined;
          if (key !== undefined && MARKED_KEYS.has(key)) report(node, 'callOperation');
        }
      }
      // A method looked up by a computed name on the client or one of its groups.
      if (
        ts.isElementAccessExpression(node) &&
        !ts.isStringLiteralLike(node.argumentExpression) &&
        CLIENT_TYPES.test(typeName(checker, node.expression) ?? '')
      )
        report(node, 'method lookup');
      // The client's types cast away (to unknown, a Record, any): what follows is not checked any more.
      if (
        (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
        !ts.isAsExpression(node.expression)
      )
        if (CLIENT_TYPES.test(typeName(checker, node.expression) ?? '')) report(node, 'method lookup');
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

const show = (f: Finding[]): string[] => f.map((x) => `${x.file}:${x.line} ${x.rule}: ${x.text}`);

describe('architecture: the send gate is the one door for money', function () {
  // A program of every module the nodes reach, with its type checker: seconds on a busy machine.
  this.timeout(120_000);
  const files = sourceFiles();
  let program: ts.Program;
  before(() => {
    program = programOf(files);
  });

  it('the catalogue marks what costs, and the check knows their typed methods', () => {
    assert.ok(MARKED.length >= 14, 'every send of both services, HLR, UDH, binary, SMSCR');
    for (const name of ['sendSms', 'sendHlr', 'sendUdh', 'sendText', 'smscr', 'sendBinData2'])
      assert.ok(MARKED_METHODS.has(name), name);
  });

  it('no module of the nodes calls a marked operation around the gate', () => {
    assert.ok(files.length > 50, 'the nodes, reliability and coordination modules are read');
    assert.ok(files.some((f) => f.endsWith(join('send', 'gate.ts'))));
    assert.deepEqual(show(findings(program, files)), []);
  });

  it('finds each way around the gate (the check itself)', () => {
    const fake = join(ROOT, 'src', 'nodes', 'smsgw-fake.ts');
    const source = `
      import { CATALOGUE, methodName } from '../catalogue';
      import type { SmsgwConfigNode } from './config/config-node';
      import { callOperation } from './config/gateway';
      import { operationOf } from './common/operations';
      import { clientSender } from '../reliability/client-sender';
      const SMS = operationOf('send/SendSMS');
      export async function evade(cfg: SmsgwConfigNode, signal: AbortSignal): Promise<void> {
        const c = cfg.getClient();
        await c.invoke('send', 'SendSMS', {});
        await c.call('legacy', 'SendText', {});
        await c.send.sendSms({} as never);
        const { sendText } = c.legacy;
        void sendText;
        const name = methodName(CATALOGUE.operations[0]!);
        void c.send[name as 'sendHlr'];
        void (c as unknown as Record<string, unknown>)['send'];
        await callOperation(c, SMS, {}, signal);
        await callOperation(c, operationOf('information/QueryJobs'), {}, signal);
        const box = await cfg.reliability!.outbox();
        await box!.submit('send', 'SendSMS', {});
        void clientSender(c);
      }`;
    const made = programOf([fake], { [fake]: source });
    const rules = findings(made, [fake]).map((f) => `${f.line - 1} ${f.rule}`);
    assert.deepEqual(rules, [
      '9 invoke/call',
      '10 invoke/call',
      '11 typed method',
      '12 typed method',
      '13 typed method',
      '14 method lookup',
      '15 method lookup',
      '15 typed method',
      '16 method lookup',
      '17 callOperation',
      '20 outbox',
      '21 outbox',
    ]);
  });

  it('and at run time: the lookup of operations that cost nothing refuses a marked one, sending nothing', async () => {
    let called = 0;
    const client = new Proxy(
      {},
      {
        get: () => () => {
          called++;
          return Promise.resolve();
        },
      },
    ) as unknown as GatewayClient;
    for (const op of MARKED) {
      await assert.rejects(
        callOperation(client, op, {}, new AbortController().signal),
        (e: unknown) =>
          e instanceof GatewayError && e.code === 'CONFIG' && /only through the send gate/.test(e.message),
      );
    }
    assert.equal(called, 0);
  });
});
