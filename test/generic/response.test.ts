import assert from 'node:assert/strict';
import {
  createGenericDecoder,
  resolveInvokeLimits,
  type GenericDecodeOptions,
  type InvokeLimits,
} from '../../src/generic';
import { GatewayError } from '../../src/errors';
import { cpuMs } from '../helpers/cpu-cost';

const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const S12 = 'http://www.w3.org/2003/05/soap-envelope';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const DECL = '<?xml version="1.0" encoding="utf-8"?>';

const env11 = (body: string): string =>
  `${DECL}<soap:Envelope xmlns:soap="${S11}" xmlns:xsi="${XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>${body}</soap:Body></soap:Envelope>`;
const env12 = (body: string, extra = ''): string =>
  `${DECL}<soap:Envelope xmlns:soap="${S12}" xmlns:xsi="${XSI}"${extra}><soap:Body>${body}</soap:Body></soap:Envelope>`;

/** Decodes `text` fed in chunks of `size` bytes (answers arrive in pieces). */
function decode(
  text: string,
  opts: Partial<GenericDecodeOptions> = {},
  size = 7,
  limits: Partial<InvokeLimits> = {},
): unknown {
  const d = createGenericDecoder(
    { transport: 'soap11', operation: 'Op', ...opts },
    resolveInvokeLimits(limits),
  );
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) d.write(bytes.subarray(i, i + size));
  return d.end();
}

function refused(
  text: string,
  message: RegExp,
  opts: Partial<GenericDecodeOptions> = {},
  limits: Partial<InvokeLimits> = {},
): GatewayError {
  let caught: unknown;
  try {
    decode(text, opts, 4096, limits);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof GatewayError, `expected a GatewayError, got ${String(caught)}`);
  assert.equal(caught.code, 'PARSE');
  assert.match(caught.message, message);
  return caught;
}

describe('generic response decoder (fast-xml-parser)', () => {
  it('unwraps <Op>Result; prefixes gone, text stays text, repeated elements become arrays, empty is "", nil is null', () => {
    const answer = env11(
      '<OpResponse xmlns="urn:x"><OpResult>\r\n  <StatusCode>Ok</StatusCode>\r\n  <Value>' +
        '<Job><Id>7</Id><Text> two  spaces &amp; &lt;tag&gt; &#x41;&#66; €</Text><Flag>true</Flag></Job>' +
        '<Job><Id>0123</Id><Text/><When xsi:nil="true"/><Raw><![CDATA[a & <b>]]></Raw></Job>' +
        '</Value>\r\n</OpResult></OpResponse>',
    );
    assert.deepEqual(decode(answer), {
      StatusCode: 'Ok',
      Value: {
        Job: [
          { Id: '7', Text: ' two  spaces & <tag> AB €', Flag: 'true' },
          { Id: '0123', Text: '', When: null, Raw: 'a & <b>' },
        ],
      },
    });
  });

  it('typed: numbers and booleans, but not phone numbers, leading zeros or integers past 2^53', () => {
    const answer = env11(
      '<OpResponse xmlns="urn:x"><OpResult><a>42</a><b>-1.5</b><c>1E+21</c><d>false</d>' +
        '<e>+4917012345678</e><f>0170123</f><g>9007199254740993</g><h>19.90</h><i>INF</i><j>True</j></OpResult></OpResponse>',
    );
    assert.deepEqual(decode(answer, { typed: true }), {
      a: 42,
      b: -1.5,
      c: 1e21,
      d: false,
      e: '+4917012345678',
      f: '0170123',
      g: '9007199254740993',
      h: 19.9,
      i: 'INF',
      j: 'True',
    });
  });

  it('lists: the named wrappers read as arrays of their items, also with one item or none', () => {
    const answer = env11(
      '<OpResponse xmlns="urn:x"><OpResult><Value><dbSMSJob><Id>1</Id></dbSMSJob></Value><Other/><Recipients/></OpResult></OpResponse>',
    );
    assert.deepEqual(decode(answer, { lists: ['Value', 'Recipients'] }), {
      Value: [{ Id: '1' }],
      Other: '',
      Recipients: [],
    });
  });

  it('mixed content keeps its text under #text', () => {
    const answer = env11('<OpResponse xmlns="urn:x"><OpResult>Hello <b>World</b>!</OpResult></OpResponse>');
    assert.deepEqual(decode(answer), { b: 'World', '#text': 'Hello !' });
  });

  it('RPC/encoded SOAP 1.1: href multi-references into Body siblings are followed', () => {
    const answer = env11(
      '<tns:GetQuoteResponse xmlns:tns="urn:x"><GetQuoteResult href="#id1"/></tns:GetQuoteResponse>' +
        '<types:Quote id="id1" xmlns:types="urn:x/encodedTypes" xsi:type="types:Quote"><Sku xsi:type="xsd:string">W-9</Sku><Notes href="#id2"/></types:Quote>' +
        '<soapenc:Array id="id2" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" soapenc:arrayType="xsd:string[2]"><Item>a</Item><Item>b</Item></soapenc:Array>',
    );
    assert.deepEqual(decode(answer, { operation: 'GetQuote' }), { Sku: 'W-9', Notes: { Item: ['a', 'b'] } });
  });

  it('RPC/encoded SOAP 1.2: rpc:result names the return accessor; soapenc:ref is followed', () => {
    const answer = env12(
      '<tns:GetQuoteResponse><rpc:result xmlns="">Answer</rpc:result><Answer soapenc:id="id1"><Sku>W</Sku><Again soapenc:ref="id3"/><Note soapenc:id="id3">n</Note></Answer></tns:GetQuoteResponse>',
      ' xmlns:tns="urn:x" xmlns:rpc="http://www.w3.org/2003/05/soap-rpc" xmlns:soapenc="http://www.w3.org/2003/05/soap-encoding"',
    );
    assert.deepEqual(decode(answer, { transport: 'soap12', operation: 'GetQuote' }), {
      Sku: 'W',
      Again: 'n',
      Note: 'n',
    });
  });

  it('out parameters beside the result: the whole wrapper; void or null result: null', () => {
    const out = env11('<OpResponse xmlns="urn:x"><OpResult>1</OpResult><count>2</count></OpResponse>');
    assert.deepEqual(decode(out), { OpResult: '1', count: '2' });
    assert.equal(decode(env11('<OpResponse xmlns="urn:x" />')), null);
  });

  it('HTTP GET/POST: the bare root element is the result; an empty 200 (void) is null', () => {
    const text = `${DECL}\r\n<string xmlns="urn:x">OK 100001</string>`;
    assert.equal(decode(text, { transport: 'get' }), 'OK 100001');
    const complex = `${DECL}\r\n<SOAPResponseOfDouble xmlns:xsi="${XSI}" xmlns="urn:x">\r\n  <StatusCode>Ok</StatusCode>\r\n  <Value>12.5</Value>\r\n</SOAPResponseOfDouble>`;
    assert.deepEqual(decode(complex, { transport: 'post', typed: true }), { StatusCode: 'Ok', Value: 12.5 });
    assert.equal(decode('', { transport: 'post' }), null);
  });

  it('a SOAP 1.1 fault: FAULT with the fault string, the code as status and the detail as a plain object', () => {
    const fault = env11(
      '<soap:Fault><faultcode>soap:Client</faultcode><faultstring>Bad ---&gt; worse</faultstring>' +
        '<detail><Error xmlns="urn:x"><Code>E17</Code><Field>Recipient</Field></Error></detail></soap:Fault>',
    );
    assert.throws(
      () => decode(fault, { service: 'send', operation: 'SendSMS' }),
      (e: unknown) => {
        assert.ok(e instanceof GatewayError);
        assert.equal(e.code, 'FAULT');
        assert.equal(e.message, 'SendSMS: Bad ---> worse');
        assert.equal(e.status, 'Client');
        assert.equal(e.service, 'send');
        assert.deepEqual(e.detail, { Error: { Code: 'E17', Field: 'Recipient' } });
        return true;
      },
    );
  });

  it('a SOAP 1.2 fault: Code/Value (not the subcode) and Reason/Text; an empty Detail is no detail', () => {
    const fault = env12(
      '<soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value><soap:Subcode><soap:Value>q0:BadArguments</soap:Value></soap:Subcode></soap:Code>' +
        '<soap:Reason><soap:Text xml:lang="en">Nope</soap:Text></soap:Reason><soap:Detail /></soap:Fault>',
    );
    assert.throws(
      () => decode(fault, { transport: 'soap12' }),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.code === 'FAULT' &&
        e.status === 'Sender' &&
        e.message === 'Op: Nope' &&
        e.detail === undefined,
    );
  });

  describe('hostile answers are refused with PARSE', () => {
    it('a DTD in the prolog (and so billion laughs), or any markup declaration inside the document', () => {
      const laughs =
        `${DECL}<!DOCTYPE lolz [<!ENTITY lol "lol">` +
        Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join(
          '',
        ) +
        `]><soap:Envelope xmlns:soap="${S11}"><soap:Body><OpResponse><OpResult>&lol9;</OpResult></OpResponse></soap:Body></soap:Envelope>`;
      // CPU time, not the clock's (a loaded machine stretches that): expanding would be billions of steps.
      const started = cpuMs();
      refused(laughs, /DTD is prohibited/);
      assert.ok(cpuMs() - started < 1000, 'refused without expanding anything');
      refused(`${DECL}<!-- c --><!DOCTYPE x SYSTEM "file:///etc/passwd"><x/>`, /DTD is prohibited/);
      refused(
        env11('<OpResponse><OpResult><!DOCTYPE x [<!ENTITY e "boom">]>&e;</OpResult></OpResponse>'),
        /DTD is prohibited/,
      );
      refused(env11('<OpResponse><OpResult><!ENTITY e "x"></OpResult></OpResponse>'), /DTD is prohibited/);
      // What looks like one inside a comment or a CDATA section is text.
      assert.equal(
        decode(env11('<R><OpResult><!-- <!DOCTYPE --><![CDATA[<!DOCTYPE html>]]></OpResult></R>')),
        '<!DOCTYPE html>',
      );
    });

    it('entities the document does not define, invalid character references', () => {
      refused(env11('<R><OpResult>&ext;</OpResult></R>'), /undefined entity &ext;/);
      refused(env11('<R><OpResult>&#x1;</OpResult></R>'), /invalid character reference/);
    });

    it('deep nesting: more than 64 levels (maxDepth), also 100,000 (no stack overflow)', () => {
      const nest = (n: number): string =>
        env11(`<R><OpResult>${'<a>'.repeat(n)}x${'</a>'.repeat(n)}</OpResult></R>`);
      // Envelope, Body, R, OpResult: 4 levels around the nest.
      assert.ok(decode(nest(60)));
      refused(nest(61), /elements nested deeper than 64 levels \(maxDepth\)/);
      refused(nest(100_000), /elements nested deeper than 64 levels \(maxDepth\)/);
      // A limit of the caller's: deeper answers read, and without recursion.
      assert.ok(decode(nest(5_000), {}, 4096, { maxDepth: 6_000 }));
    });

    it('names JavaScript treats specially (prototype pollution)', () => {
      refused(
        env11('<R><OpResult><__proto__><polluted>yes</polluted></__proto__></OpResult></R>'),
        /__proto__/,
      );
      refused(
        env11('<R><OpResult><x:constructor xmlns:x="u">1</x:constructor></OpResult></R>'),
        /constructor/,
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('documents that are not well-formed: truncated, mismatched, two roots, text after the root, not XML', () => {
      const whole = env11('<R><OpResult>1</OpResult></R>');
      refused(whole.slice(0, -20), /the document ended inside a tag/);
      refused(whole.slice(0, whole.indexOf('</R>')), /unclosed element <R>/);
      refused(env11('<R><OpResult>1</R></OpResult>'), /<\/R> does not close <OpResult>/);
      refused(`${DECL}<a/><b/>`, /more than one root/, { transport: 'get' });
      refused(`${whole}junk`, /text outside the root element/);
      refused(`${DECL}<a/>junk`, /text outside the root element/, { transport: 'get' });
      refused('Service Unavailable', /.+/, { transport: 'get' });
      refused(`${DECL}<html><body>x</body></html>`, /expected a SOAP Envelope, found <html>/);
    });

    it('references that loop or multiply beyond the document', () => {
      refused(env11('<R><OpResult href="#a"/></R><x id="a"><y href="#a"/></x>'), /refers to itself/);
      refused(env11('<R><OpResult href="#nope"/></R>'), /unresolved reference #nope/);
      // Each level refers to the next twice: 2^30 values from a few hundred bytes.
      let body = '<R><OpResult href="#l0"/></R>';
      for (let i = 0; i < 30; i++) body += `<v id="l${i}"><a href="#l${i + 1}"/><b href="#l${i + 1}"/></v>`;
      body += '<v id="l30">x</v>';
      const started = cpuMs();
      refused(env11(body), /references expand the answer too far/);
      assert.ok(cpuMs() - started < 2000, 'refused before following all of them (CPU time)');
    });
  });
});
