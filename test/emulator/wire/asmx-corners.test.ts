import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http, type HttpAnswer } from './helpers/http';

// Corners where an emulator drifts from ASP.NET ASMX easily. The expected bytes come from reading
// SoapServerProtocol, its SOAP 1.1/1.2 helpers and ServerProtocol.GenerateFaultString (asmx-wire.md §2, §6).

const GW = 'https://gateway.smsgw.example/';
const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const S12 = 'http://www.w3.org/2003/05/soap-envelope';
const XSI_XSD =
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';
const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const TEXT_XML = 'text/xml; charset=utf-8';
const SOAP_XML = 'application/soap+xml; charset=utf-8';
const INFO = '/gateway/Information.asmx';
const ACTION = `"${GW}QueryAccountBalance"`;

const balance = (envNs: string, user = 'demo'): string =>
  `<soap:Envelope xmlns:soap="${envNs}"><soap:Body><QueryAccountBalance xmlns="${GW}"><User>${user}</User><Password>secret</Password></QueryAccountBalance></soap:Body></soap:Envelope>`;
const unknownElement = (envNs: string): string =>
  `<soap:Envelope xmlns:soap="${envNs}"><soap:Body><Nope xmlns="${GW}" /></soap:Body></soap:Envelope>`;

const fault11 = (code: string, text: string, header = ''): string =>
  `${DECL}<soap:Envelope xmlns:soap="${S11}" ${XSI_XSD}>${header}<soap:Body><soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${text}</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>`;
const fault12 = (code: string, text: string): string =>
  `${DECL}<soap:Envelope xmlns:soap="${S12}" ${XSI_XSD}><soap:Body><soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>`;

const UPGRADE =
  `<soap:Header><soap12:Upgrade xmlns:soap12="${S12}">` +
  `<soap12:SupportedEnvelope qname="soap:Envelope" xmlns:soap="${S11}" />` +
  `<soap12:SupportedEnvelope qname="soap12:Envelope" xmlns:soap12="${S12}" />` +
  '</soap12:Upgrade></soap:Header>';

function empty(res: HttpAnswer, status: number, contentType: string): void {
  assert.equal(res.status, status, res.body);
  assert.equal(res.headers['content-type'], contentType);
  assert.equal(res.headers['content-length'], '0');
  assert.equal(res.body, '');
}

function answer(res: HttpAnswer, status: number, contentType: string, body: string): void {
  assert.equal(res.status, status);
  assert.equal(res.headers['content-type'], contentType);
  assert.equal(res.body, body);
}

describe('emulator wire: ASMX fidelity corners', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend });
  });
  after(() => emu.close());
  const post = (headers: Record<string, string>, body: string): Promise<HttpAnswer> =>
    http(emu.url, 'POST', INFO, headers, body);

  describe('empty 400 and 415 answers carry the content type of the helper that answers', () => {
    it('400 for a SOAP 1.1 envelope that is not well-formed: text/xml', async () => {
      const res = await post(
        { 'Content-Type': TEXT_XML, SOAPAction: ACTION },
        `<soap:Envelope xmlns:soap="${S11}"><soap:Body><oops></soap:Body></soap:Envelope>`,
      );
      empty(res, 400, TEXT_XML);
    });

    it('400 for a SOAP 1.2 envelope that is not well-formed: application/soap+xml', async () => {
      const res = await post(
        { 'Content-Type': `${SOAP_XML}; action="${GW}QueryAccountBalance"` },
        `<soap:Envelope xmlns:soap="${S12}"><soap:Body><oops></soap:Body></soap:Envelope>`,
      );
      empty(res, 400, SOAP_XML);
    });

    it('400 before any root element: the guessed helper (SOAPAction: 1.1, none: 1.2)', async () => {
      empty(await post({ 'Content-Type': TEXT_XML, SOAPAction: ACTION }, 'not xml at all'), 400, TEXT_XML);
      empty(
        await post({ 'Content-Type': `${SOAP_XML}; action="${GW}QueryAccountBalance"` }, '<<<'),
        400,
        SOAP_XML,
      );
    });

    it('415 for a media type that is not SOAP: the guessed helper', async () => {
      empty(await post({ 'Content-Type': 'text/plain', SOAPAction: ACTION }, balance(S11)), 415, TEXT_XML);
      // No SOAPAction: the 1.2 helper routes by the body element, then refuses the media type.
      empty(await post({ 'Content-Type': 'text/plain; charset=utf-8' }, balance(S12)), 415, SOAP_XML);
    });

    it('415 for a SOAP 1.1 envelope sent as application/soap+xml: the 1.1 helper, text/xml', async () => {
      empty(await post({ 'Content-Type': SOAP_XML }, balance(S11)), 415, TEXT_XML);
    });

    it('a media type that is not SOAP with an unknown SOAPAction: routing fails first (500 fault)', async () => {
      const res = await post({ 'Content-Type': 'text/plain', SOAPAction: '"urn:nope"' }, balance(S11));
      answer(
        res,
        500,
        TEXT_XML,
        fault11('Client', 'Server did not recognize the value of HTTP Header SOAPAction: urn:nope.'),
      );
    });
  });

  describe('SOAP 1.1 without a SOAPAction header is routed by the SOAP 1.2 helper', () => {
    it('an unknown body element: its fault text, written by the 1.1 helper of the envelope (500, text/xml)', async () => {
      const text =
        'Unable to handle request without a valid action parameter. Please supply a valid soap action.';
      answer(
        await post({ 'Content-Type': TEXT_XML }, unknownElement(S11)),
        500,
        TEXT_XML,
        fault11('Client', text),
      );
      // The same request in a SOAP 1.2 envelope: the same text as a Sender fault.
      answer(
        await post({ 'Content-Type': SOAP_XML }, unknownElement(S12)),
        500,
        SOAP_XML,
        fault12('Sender', text),
      );
      // A known body element is still called.
      const ok = await post({ 'Content-Type': TEXT_XML }, balance(S11));
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['content-type'], TEXT_XML);
      assert.match(ok.body, /<QueryAccountBalanceResult><StatusCode>Ok<\/StatusCode>/);
    });

    it('an action parameter in text/xml is used, and named when nothing matches', async () => {
      const res = await post({ 'Content-Type': `${TEXT_XML}; action="urn:x"` }, unknownElement(S11));
      answer(
        res,
        500,
        TEXT_XML,
        fault11('Client', "Unable to handle request. The action 'urn:x' was not recognized."),
      );
    });

    it('no Body: a Server fault (the routing helper threw, not the parameter reader)', async () => {
      const res = await post({ 'Content-Type': TEXT_XML }, `<soap:Envelope xmlns:soap="${S11}" />`);
      answer(
        res,
        500,
        TEXT_XML,
        fault11(
          'Server',
          'Server was unable to process request. ---&gt; Request format is invalid: Missing required soap:Body element.',
        ),
      );
    });

    it('a SOAP 1.2 envelope as text/xml with a SOAPAction is routed by it (the 1.1 helper guessed)', async () => {
      // Unknown: the 1.1 helper answers in SOAP 1.1 without reading the envelope.
      const res = await post({ 'Content-Type': TEXT_XML, SOAPAction: '"urn:nope"' }, balance(S12));
      answer(
        res,
        500,
        TEXT_XML,
        fault11('Client', 'Server did not recognize the value of HTTP Header SOAPAction: urn:nope.'),
      );
      // Known: called, and answered in the envelope's version.
      const ok = await post({ 'Content-Type': TEXT_XML, SOAPAction: ACTION }, balance(S12));
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['content-type'], SOAP_XML);
    });
  });

  describe('an unknown envelope namespace gets the soap12:Upgrade header (SOAP 1.2 is enabled)', () => {
    const mismatch = (ns: string): string =>
      fault11(
        'VersionMismatch',
        `Possible SOAP version mismatch: Envelope namespace ${ns} was unexpected. Expecting ${S11}.`,
        UPGRADE,
      );

    it('routed by SOAPAction: the 1.1 helper answers, expecting the 1.1 namespace; nothing runs', async () => {
      const calls = backend.calls.length;
      const res = await post({ 'Content-Type': TEXT_XML, SOAPAction: ACTION }, balance('urn:soap3'));
      answer(res, 500, TEXT_XML, mismatch('urn:soap3'));
      assert.equal(backend.calls.length, calls, 'no operation ran');
    });

    it('without SOAPAction (the 1.2 guess) too: still SOAP 1.1, still the 1.1 namespace', async () => {
      const a = await post({ 'Content-Type': SOAP_XML }, balance('urn:soap3'));
      answer(a, 500, TEXT_XML, mismatch('urn:soap3'));
      const b = await post({ 'Content-Type': SOAP_XML }, unknownElement('urn:soap3'));
      answer(b, 500, TEXT_XML, mismatch('urn:soap3'));
    });

    it('a root element without a namespace is a version mismatch too', async () => {
      const res = await post({ 'Content-Type': TEXT_XML, SOAPAction: ACTION }, '<QueryAccountBalance />');
      answer(res, 500, TEXT_XML, mismatch(''));
    });

    it('the namespace is judged on the root start tag even when the rest is not well-formed', async () => {
      const res = await post(
        { 'Content-Type': TEXT_XML, SOAPAction: ACTION },
        '<e:Envelope xmlns:e="urn:soap3"><e:Body><oops></e:Body></e:Envelope>',
      );
      answer(res, 500, TEXT_XML, mismatch('urn:soap3'));
    });
  });

  describe('"There is an error in XML document (L, C)" names the reader position after the end tag', () => {
    const hlr = (inner: string): string =>
      `<soap:Envelope xmlns:soap="${S11}"><soap:Body><QueryHLRJobsByJobID xmlns="${GW}">${inner}</QueryHLRJobsByJobID></soap:Body></soap:Envelope>`;
    const where = async (body: string): Promise<string> => {
      const res = await post({ 'Content-Type': TEXT_XML, SOAPAction: `"${GW}QueryHLRJobsByJobID"` }, body);
      assert.equal(res.status, 500);
      const m = /There is an error in XML document \((\d+), (\d+)\)\./.exec(res.body);
      assert.ok(m, res.body);
      return `${m[1]}, ${m[2]}`;
    };
    const prefix = hlr('').indexOf('</QueryHLRJobsByJobID>');

    it('followed by whitespace: the first whitespace character', async () => {
      assert.equal(await where(hlr('\r\n  <JobID>abc</JobID>\r\n')), '2, 21');
    });

    it('followed by an end tag: the name in it', async () => {
      const el = '<JobID>x</JobID>';
      // 1-based: the end tag's '<' is at prefix + el.length + 1, its name two further on.
      assert.equal(await where(hlr(el)), `1, ${prefix + el.length + 3}`);
    });

    it('followed by another element, a comment or CDATA: past the markup that opens it', async () => {
      const el = '<JobID>x</JobID>';
      assert.equal(await where(hlr(`${el}<User>a</User>`)), `1, ${prefix + el.length + 2}`);
      assert.equal(await where(hlr(`${el}<!-- c -->`)), `1, ${prefix + el.length + 5}`);
    });

    it('an empty element: after its />', async () => {
      assert.equal(await where(hlr('\n<JobID />\n')), '2, 10');
    });
  });

  describe('HTTP GET/POST error texts', () => {
    it('join the exception chain with a literal " ---> ", each message HTML-encoded on its own', async () => {
      const res = await http(emu.url, 'GET', `${INFO}/QueryHLRJobsByJobID?User=a&Password=b&JobID=%3Cx%3E`);
      answer(
        res,
        500,
        'text/plain; charset=utf-8',
        'Cannot convert &lt;x&gt; to System.Int32.\r\nParameter name: type ---> Input string was not in a correct format.\r\n',
      );
    });

    it('in the verbose form too (type names and frames are not encoded)', async () => {
      const v = await startEmulator({ backend, verboseFaults: true });
      try {
        const res = await http(v.url, 'GET', `${INFO}/QueryHLRJobsByJobID?User=a&Password=b&JobID=%3Cx%3E`);
        assert.equal(res.status, 500);
        assert.ok(
          res.body.startsWith(
            'System.ArgumentException: Cannot convert &lt;x&gt; to System.Int32.\r\nParameter name: type ---> System.FormatException: Input string was not in a correct format.\r\n   --- End of inner exception stack trace ---\r\n   at ',
          ),
          res.body,
        );
        assert.ok(!res.body.includes('&gt; System'), 'the arrow is not encoded');
      } finally {
        await v.close();
      }
    });
  });
});
