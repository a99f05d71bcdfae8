import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { XmlScanner, decodeText } from '../../src/soap/xml-scanner';

type Event = ['open', string, string[]] | ['close'] | ['text', string];

/** Our events with adjacent text merged (chunk boundaries may split text anywhere). */
function scan(chunks: string[]): Event[] {
  const out: Event[] = [];
  const text = (t: string): void => {
    const last = out[out.length - 1];
    if (last?.[0] === 'text') last[1] += t;
    else out.push(['text', t]);
  };
  const s = new XmlScanner({
    open: (name, attrs) => out.push(['open', name, attrs ?? []]),
    close: () => out.push(['close']),
    text: (src, a, b) => text(decodeText(src, a, b)),
    cdata: text,
  });
  for (const c of chunks) s.write(c);
  s.end();
  return out.filter((e) => e[0] !== 'text' || e[1] !== '');
}

/** The same events from saxes (an independent, strict parser), as the oracle. */
function oracle(xml: string): Event[] {
  const out: Event[] = [];
  const text = (t: string): void => {
    const last = out[out.length - 1];
    if (last?.[0] === 'text') last[1] += t;
    else out.push(['text', t]);
  };
  let depth = 0;
  const p = new SaxesParser({ xmlns: false });
  p.on('opentag', (t) => {
    depth++;
    out.push(['open', t.name, Object.entries(t.attributes).flat()]);
  });
  p.on('closetag', () => {
    depth--;
    out.push(['close']);
  });
  p.on('text', (t) => depth > 0 && text(t));
  p.on('cdata', text);
  p.write(xml).close();
  return out.filter((e) => e[0] !== 'text' || e[1] !== '');
}

const fails = (xml: string, re: RegExp): void => {
  assert.throws(() => scan([xml]), re, xml);
};

describe('XML scanner', () => {
  it('reads tags, attributes, text, references, CDATA, comments, PIs and a BOM', () => {
    const xml =
      '\uFEFF<?xml version="1.0" encoding="utf-8"?>\r\n<!-- c --><a:r xmlns:a="u" x=\'1 &amp; 2\' y="&#x41;&#66;\tz">' +
      'one &lt;two&gt; &quot;3&apos;\r\n<b/><![CDATA[<raw & text>]]><?pi x?><c  k = "v" ></c ></a:r>\n';
    assert.deepEqual(scan([xml]), [
      ['open', 'a:r', ['xmlns:a', 'u', 'x', '1 & 2', 'y', 'AB z']],
      ['text', 'one <two> "3\'\n'],
      ['open', 'b', []],
      ['close'],
      ['text', '<raw & text>'],
      ['open', 'c', ['k', 'v']],
      ['close'],
      ['close'],
    ]);
    assert.deepEqual(scan([xml]), oracle(xml.slice(1)));
  });

  it('gives the same events whatever the chunk boundaries (every split point of a tricky document)', () => {
    const xml =
      '<?xml version="1.0"?><s:E xmlns:s="urn:x"><s:B a="&lt;&#x1F600;" b=\'"\'><V>x &amp;&#233;\r\ny</V>' +
      '<![CDATA[]]]]><![CDATA[>]]><!-- -- --><W/><X  /></s:B></s:E>';
    const whole = scan([xml]);
    for (let i = 0; i <= xml.length; i++) {
      for (const j of [i, Math.min(xml.length, i + 1), Math.min(xml.length, i + 7)]) {
        assert.deepEqual(scan([xml.slice(0, i), xml.slice(i, j), xml.slice(j)]), whole, `split at ${i}/${j}`);
      }
    }
  });

  it('agrees with saxes on random well-formed documents, whole and in random chunks', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/);
    const textArb = fc.string({
      unit: fc.constantFrom('a', ' ', '\n', '\r\n', '\t', 'é', '😀', '&amp;', '&lt;', '&#x4E2D;', '>', ']]'),
    });
    type Tree = { name: string; attrs: [string, string][]; kids: (Tree | string)[] };
    const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
      t: fc.record({
        name,
        attrs: fc.uniqueArray(fc.tuple(name, textArb), { selector: (a) => a[0], maxLength: 3 }),
        kids: fc.array(fc.oneof({ depthSize: 'small' }, textArb, tie('t')), { maxLength: 4 }),
      }),
    })).t;
    const render = (t: Tree): string =>
      `<${t.name}${t.attrs.map(([k, v]) => ` ${k}="${v.replace(/"/g, '&quot;')}"`).join('')}>` +
      t.kids
        .map((k) => (typeof k === 'string' ? k : render(k)))
        .join('')
        .replace(/]]>/g, ']]&gt;') +
      `</${t.name}>`;
    fc.assert(
      fc.property(tree, fc.array(fc.nat(), { maxLength: 6 }), (t, cuts) => {
        const xml = render(t);
        const expected = oracle(xml);
        assert.deepEqual(scan([xml]), expected);
        const points = [...new Set(cuts.map((c) => c % (xml.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i, all) => xml.slice(p, all[i + 1] ?? xml.length));
        assert.deepEqual(scan(chunks), expected);
      }),
      { numRuns: 300 },
    );
  });

  it('reads long documents (past the point where names are cached) the same in any chunks', () => {
    const names = ['Id', 'Value', 'soap:Body', 'DoneDateTimeZoneOffset', 'QueryReceivedDLRResponse', 'x'];
    const items = Array.from({ length: 400 }, (_, i) => {
      const n = names[i % names.length] as string;
      return `<${n} a="${i}">${i} &amp; ${n}</${n}>`;
    });
    const xml = `<r>${items.join('\n')}</r>`;
    const expected = oracle(xml);
    assert.deepEqual(scan([xml]), expected);
    for (const size of [1, 7, 64, 1000]) {
      const chunks: string[] = [];
      for (let i = 0; i < xml.length; i += size) chunks.push(xml.slice(i, i + size));
      assert.deepEqual(scan(chunks), expected, `chunks of ${size}`);
    }
  });

  it('reports the offset of each start tag in the whole document', () => {
    const offsets: number[] = [];
    const s = new XmlScanner({ open: (_n, _a, o) => offsets.push(o), close() {}, text() {}, cdata() {} });
    for (const c of ['<a>\n <b', '/>\n  <c x="1"', '></c></a>']) s.write(c);
    s.end();
    assert.deepEqual(offsets, [0, 5, 12]);
  });

  it('reports the offset just past each end tag and each empty tag, across chunks', () => {
    const ends: number[] = [];
    const s = new XmlScanner({ open() {}, close: (e) => ends.push(e), text() {}, cdata() {} });
    for (const c of ['<a>\n <b', '/>\n  <c x="1"', '></c></a>']) s.write(c);
    s.end();
    // <b/> ends at 9, </c> at 25, </a> at 29.
    assert.deepEqual(ends, [9, 25, 29]);
  });

  it('refuses what is not well-formed', () => {
    fails('<a><b></a>', /does not close <b>/);
    fails('<a></b>', /does not close <a>/);
    fails('<a>', /unclosed element <a>/);
    fails('<a', /ended inside a tag/);
    fails('', /no root element/);
    fails('  ', /no root element/);
    fails('<a/><b/>', /more than one root/);
    fails('x<a/>', /text outside the root/);
    fails('<a/>x', /text outside the root/);
    fails('</a>', /close tag without a start tag/);
    fails('<1a/>', /invalid element name/);
    fails('<a x=1/>', /not quoted/);
    fails('<a x/>', /without a value/);
    fails('<a x="1"y="2"/>', /malformed tag/);
    fails('<a x="1" x="2"/>', /repeated/);
    fails('<a x="<"/>', /'<' in an attribute value/);
    // References in text are checked where text is read (decodeText): skipped content costs nothing.
    fails('<a>&nbsp;</a>', /undefined entity &nbsp;/);
    fails('<a>&amp</a>', /unterminated entity/);
    fails('<a>&#0;</a>', /invalid character reference/);
    fails('<a>&#xD800;</a>', /invalid character reference/);
    fails('<a>&#12a;</a>', /invalid character reference/);
    fails('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /DTD is prohibited/);
    fails('<a><!x></a>', /malformed markup/);
    fails('<![CDATA[x]]><a/>', /CDATA outside the root/);
  });

  it('refuses writes after the end', () => {
    const s = new XmlScanner({ open() {}, close() {}, text() {}, cdata() {} });
    s.parse('<a/>');
    assert.throws(() => s.write('<b/>'), /write after end/);
  });
});
