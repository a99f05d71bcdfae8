/**
 * client.invoke() for every catalogue operation over the four transports against the emulator, compared
 * field by field with the typed path. Each invoke() goes through a recording proxy to the emulator; the typed
 * client then decodes the very same answer (replayed), so sends, collecting queries ("new" messages) and
 * timestamps compare exactly. What legitimately differs is normalised by the catalogue's type of each field:
 * invoke() keeps text where the typed path has numbers, booleans, Dates and Buffers; it shows a list as its
 * wrapper element with the items under their element name (one item: not an array; none: ""); and it leaves
 * out what the answer leaves out, where the typed path puts the .NET default of a value type.
 */
import assert from 'node:assert/strict';
import { COMPLEX_TYPES, OPERATIONS } from '../../src/catalogue';
import type { OperationDef, TypeRef } from '../../src/catalogue/types';
import { GatewayClient, type Transport } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { isGatewayError } from '../../src/errors';
import { wireDefault } from '../../src/soap/coerce';
import { absentValue } from '../../src/soap/plan';
import { MIN_DATE_TEXT, parseBase64, parseBoolean, parseDateTime, parseDouble } from '../../src/soap/values';
import { sampleParams } from './sample-params';
import { Stub } from './stub';

const USER = 'demo';
const PASSWORD = 'demo-password';
const TRANSPORTS: Transport[] = ['soap11', 'soap12', 'get', 'post'];

/** The typed path's parameters in the shape a generic caller writes them for this transport. */
function genericParams(
  op: OperationDef,
  typed: Record<string, unknown>,
  transport: Transport,
): Record<string, unknown> {
  const soap = transport === 'soap11' || transport === 'soap12';
  const out: Record<string, unknown> = {};
  for (const p of op.params) {
    if (p.credential) continue;
    let v = typed[p.name];
    if (v === undefined) {
      // ASMX wants every GET/POST key; the typed builder sends the wire default of an optional one.
      if (!soap) v = wireDefault(p.type, p.allowed);
      if (v === undefined) continue;
    }
    const isDate = p.type.kind === 'primitive' && p.type.name === 'dateTime';
    // null = .NET's "no date", spelled on every transport: ASMX refuses xsi:nil on a DateTime (a value type).
    if (v === null && isDate) v = MIN_DATE_TEXT;
    if (p.type.kind === 'list') {
      const items = Array.isArray(v) ? v : [v];
      // Document/literal: the wrapper holds one element per item, named for the item type (§3.1).
      v = soap && op.style === 'document' ? { [p.type.itemElement]: items } : items;
    }
    out[p.name] = v;
  }
  return out;
}

const fail = (where: string, typed: unknown, generic: unknown): never =>
  assert.fail(`${where}: typed ${JSON.stringify(typed)} vs invoke ${JSON.stringify(generic)}`);

/** Compares a typed value with invoke()'s text form of it, directed by the catalogue type. */
function same(type: TypeRef, typed: unknown, generic: unknown, where: string): void {
  if (generic === undefined) {
    // Absent from the answer: the typed path leaves it out or puts the value type's default.
    if (typed !== undefined && !Object.is(typed, absentValue(type))) fail(where, typed, generic);
    return;
  }
  if (generic === null) {
    if (typed !== null && typed !== undefined) fail(where, typed, generic);
    return;
  }
  switch (type.kind) {
    case 'enum':
      if (typed !== generic) fail(where, typed, generic);
      return;
    case 'list': {
      assert.ok(Array.isArray(typed), `${where}: typed list`);
      let items: unknown[];
      if (generic === '') items = [];
      else {
        const inner = (generic as Record<string, unknown>)[type.itemElement];
        items = Array.isArray(inner) ? inner : [inner];
      }
      assert.equal(items.length, typed.length, `${where}: list length`);
      items.forEach((item, i) => same(type.item, typed[i], item, `${where}[${i}]`));
      return;
    }
    case 'complex': {
      const obj = generic === '' ? {} : (generic as Record<string, unknown>);
      assert.equal(typeof obj, 'object', `${where}: object`);
      const fields = COMPLEX_TYPES[type.name]!.fields;
      for (const key of Object.keys(obj)) {
        assert.ok(
          fields.some((f) => f.name === key),
          `${where}: invoke() has ${key}, the catalogue not`,
        );
      }
      for (const f of fields) {
        same(f.type, (typed as Record<string, unknown>)[f.name], obj[f.name], `${where}.${f.name}`);
      }
      return;
    }
    case 'primitive': {
      assert.equal(typeof generic, 'string', `${where}: invoke() keeps text`);
      const text = generic as string;
      const ok = ((): boolean => {
        switch (type.name) {
          case 'string':
            return typed === text;
          case 'int':
          case 'double':
            return Object.is(typed, parseDouble(text));
          case 'boolean':
            return typed === parseBoolean(text);
          case 'dateTime': {
            const d = parseDateTime(text, { zoneless: 'utc' });
            return d === null ? typed === null : typed instanceof Date && typed.getTime() === d.getTime();
          }
          case 'base64Binary':
            return Buffer.isBuffer(typed) && typed.equals(parseBase64(text));
        }
      })();
      if (!ok) fail(where, typed, generic);
    }
  }
}

interface Recorded {
  status: number;
  contentType: string;
  body: Buffer;
}

describe('client.invoke() against the emulator, field by field with the typed path', function () {
  this.timeout(120_000);
  let emu: RunningEmulator;
  let proxy: Stub;
  let replay: Stub;
  let last: Recorded | undefined;

  before(async () => {
    emu = await startEmulator({ user: USER, password: PASSWORD, balance: 100_000, duplicateWindowMs: 0 });
    // Forwards every request to the emulator and keeps the last answer.
    proxy = await new Stub().start();
    proxy.handler = (req, res) => {
      void fetch(emu.url + req.url, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => ['content-type', 'soapaction'].includes(k)),
        ) as Record<string, string>,
        body: req.method === 'POST' ? req.body : undefined,
      }).then(async (r) => {
        const body = Buffer.from(await r.arrayBuffer());
        const contentType = r.headers.get('content-type') ?? '';
        if (!req.url.includes('?WSDL')) last = { status: r.status, contentType, body };
        res.writeHead(r.status, { 'content-type': contentType });
        res.end(body);
      });
    };
    // Gives the typed client the answer invoke() got.
    replay = await new Stub().start();
    replay.handler = (_req, res) => {
      assert.ok(last, 'an answer to replay');
      res.writeHead(last.status, { 'content-type': last.contentType });
      res.end(last.body);
    };
  });
  after(async () => {
    await proxy.stop();
    await replay.stop();
    await emu.close();
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      let generic: GatewayClient;
      let typed: GatewayClient;
      let customerId = 0;
      const caption = `inv-${transport}`;
      before(async () => {
        generic = new GatewayClient({ baseUrl: proxy.url, user: USER, password: PASSWORD, transport });
        typed = new GatewayClient({
          baseUrl: replay.url,
          user: USER,
          password: PASSWORD,
          transport,
          gatewayNamespace: 'https://gateway.smsgw.example/',
          legacyNamespace: 'https://gateway.smsgw.example/soap/',
          retries: 0,
        });
        // A job with this caption first, so that the caption queries find something.
        const send = OPERATIONS.find((o) => o.service === 'send' && o.name === 'SendSMS')!;
        await generic.invoke('send', 'SendSMS', genericParams(send, sampleParams(send, caption), transport));
        const list = (await generic.invoke('customer', 'GetCustomerList', {}, { lists: ['Value'] })) as {
          Value: { Id: string }[];
        };
        customerId = Number(list.Value[0]?.Id ?? 0);
      });
      after(async () => {
        await generic.close();
        await typed.close();
      });

      for (const op of OPERATIONS) {
        it(`${op.service}/${op.name}`, async () => {
          const params = sampleParams(op, caption, customerId);
          let answer: unknown;
          last = undefined;
          try {
            answer = await generic.invoke(op.service, op.name, genericParams(op, params, transport));
          } catch (e) {
            assert.fail(
              `${op.name}: ${isGatewayError(e) ? `${e.code} ${e.message} ${e.body ?? ''}` : String(e)}`,
            );
          }
          assert.ok(last, 'the answer went through the proxy');
          // The emulator understood the request: the login worked and sends were accepted.
          if (op.service === 'legacy') {
            assert.equal(typeof answer, 'string');
            if (op.sends) assert.match(answer as string, /^OK/, `${op.name}: ${String(answer)}`);
          } else {
            // SendMobileOrFixlineSMS answers with a list of envelopes (ArrayOfSOAPResponseOfCreateJobInfo).
            const list =
              op.result.type.kind === 'list'
                ? (answer as Record<string, unknown>)[op.result.type.itemElement]
                : answer;
            const envelopes = Array.isArray(list) ? list : [list];
            for (const e of envelopes as { StatusCode: string; Value?: Record<string, unknown> }[]) {
              assert.equal(e.StatusCode, 'Ok', `${op.name}: ${JSON.stringify(answer)}`);
              // Sends: the status the catalogue says to check (CreateStatus, ParseStatus) is an OK one.
              const check = op.statusCheck;
              if (check) {
                const status = check.path.reduce<unknown>(
                  (v, k) => (v as Record<string, unknown>)?.[k],
                  e.Value,
                );
                assert.ok(check.ok.includes(String(status)), `${op.name}: ${JSON.stringify(answer)}`);
              }
            }
          }
          const typedAnswer = (await typed.call(op.service, op.name as never, params as never)) as unknown;
          if (op.service === 'legacy') {
            // The typed path parses the older service's string; invoke() hands over the string itself.
            assert.equal(answer, (typedAnswer as { raw: string }).raw);
          } else same(op.result.type, typedAnswer, answer, op.name);
        });
      }
    });
  }
});
