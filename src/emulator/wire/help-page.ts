import { soapAction } from '../../catalogue';
import type { OperationDef, ParamDef, TypeRef } from '../../catalogue/types';
import { NS } from './ns';

const enc = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export interface HelpInput {
  serviceName: string;
  path: string;
  ns: string;
  ops: readonly OperationDef[];
  enableGet: boolean;
  enablePost: boolean;
}

const page = (title: string, body: string): string =>
  `<html>\r\n<head><title>${enc(title)}</title></head>\r\n<body>\r\n${body}\r\n</body>\r\n</html>\r\n`;

/** `GET <P>`: the service help page of the Documentation protocol. */
export function helpPage(h: HelpInput): string {
  const items = h.ops
    .map(
      (op) =>
        `<li><a href="${enc(h.path)}?op=${enc(op.name)}">${enc(op.name)}</a><br />${enc(op.doc)} ` +
        `<i>(${op.style === 'rpc' ? 'RPC/encoded' : 'document/literal'})</i></li>`,
    )
    .join('\r\n');
  return page(
    `${h.serviceName} Web Service`,
    `<h1>${enc(h.serviceName)}</h1>\r\n<p>SMS gateway emulator. The following operations are supported. ` +
      `For a formal definition, please review the <a href="${enc(h.path)}?WSDL">Service Description</a>.</p>\r\n` +
      `<ul>\r\n${items}\r\n</ul>`,
  );
}

const placeholder = (type: TypeRef): string => (type.kind === 'list' ? placeholder(type.item) : type.name);

function literalParam(p: ParamDef): string {
  if (p.type.kind === 'list') {
    const item = `<${p.type.itemElement}>${placeholder(p.type.item)}</${p.type.itemElement}>`;
    return `      <${p.name}>\n        ${item}\n        ${item}\n      </${p.name}>`;
  }
  return `      <${p.name}>${placeholder(p.type)}</${p.name}>`;
}

function encodedParam(p: ParamDef, version: '1.1' | '1.2'): string {
  if (p.type.kind === 'list') {
    const item = `        <Item>${placeholder(p.type.item)}</Item>`;
    const attrs =
      version === '1.1'
        ? `soapenc:arrayType="xsd:${placeholder(p.type.item)}[2]"`
        : `soapenc:itemType="xsd:${placeholder(p.type.item)}" soapenc:arraySize="2"`;
    return `      <${p.name} ${attrs}>\n${item}\n${item}\n      </${p.name}>`;
  }
  return `      <${p.name} xsi:type="xsd:${placeholder(p.type)}">${placeholder(p.type)}</${p.name}>`;
}

function soapSample(h: HelpInput, op: OperationDef, version: '1.1' | '1.2'): string {
  const action = soapAction(h.ns, op.name);
  const headers =
    version === '1.1'
      ? `Content-Type: text/xml; charset=utf-8\nSOAPAction: "${action}"`
      : `Content-Type: application/soap+xml; charset=utf-8; action="${action}"`;
  const envNs = version === '1.1' ? NS.soap11 : NS.soap12;
  const encNs = version === '1.1' ? NS.enc11 : NS.enc12;
  const body =
    op.style === 'rpc'
      ? `    <tns:${op.name} xmlns:tns="${h.ns}">\n${op.params.map((p) => encodedParam(p, version)).join('\n')}\n    </tns:${op.name}>`
      : `    <${op.name} xmlns="${h.ns}">\n${op.params.map(literalParam).join('\n')}\n    </${op.name}>`;
  const extra = op.style === 'rpc' ? ` xmlns:soapenc="${encNs}"` : '';
  return (
    `POST ${h.path} HTTP/1.1\nHost: localhost\n${headers}\n\n<?xml version="1.0" encoding="utf-8"?>\n` +
    `<soap:Envelope xmlns:soap="${envNs}" xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}"${extra}>\n  <soap:Body>\n${body}\n  </soap:Body>\n</soap:Envelope>`
  );
}

function formQuery(op: OperationDef): string {
  return op.params
    .flatMap((p) => {
      const many = p.type.kind === 'list' || (p.type.kind === 'primitive' && p.type.name === 'base64Binary');
      const v = p.type.kind === 'primitive' && p.type.name === 'base64Binary' ? 'byte' : placeholder(p.type);
      return many ? [`${p.name}=${v}`, `${p.name}=${v}`] : [`${p.name}=${v}`];
    })
    .join('&');
}

/** `GET <P>?op=X`: sample requests of one operation for each enabled protocol. */
export function operationPage(h: HelpInput, op: OperationDef): string {
  const section = (title: string, text: string): string =>
    `<h3>${enc(title)}</h3>\r\n<pre>${enc(text)}</pre>`;
  const parts = [
    `<h1>${enc(h.serviceName)}</h1>\r\n<p>Click <a href="${enc(h.path)}">here</a> for a complete list of operations.</p>`,
    `<h2>${enc(op.name)}</h2>\r\n<p>${enc(op.doc)}</p>`,
    section('SOAP 1.1', soapSample(h, op, '1.1')),
    section('SOAP 1.2', soapSample(h, op, '1.2')),
  ];
  if (h.enableGet)
    parts.push(section('HTTP GET', `GET ${h.path}/${op.name}?${formQuery(op)} HTTP/1.1\nHost: localhost`));
  if (h.enablePost) {
    const q = formQuery(op);
    parts.push(
      section(
        'HTTP POST',
        `POST ${h.path}/${op.name} HTTP/1.1\nHost: localhost\nContent-Type: application/x-www-form-urlencoded\nContent-Length: length\n\n${q}`,
      ),
    );
  }
  if (h.enableGet || h.enablePost) {
    parts.push(
      `<p>The HTTP GET/POST answer is <code>&lt;${enc(op.result.bare)} xmlns="${enc(h.ns)}"&gt;</code>; SOAP answers with ` +
        `<code>${enc(op.name)}Response</code> / <code>${enc(op.name)}Result</code>.</p>`,
    );
  }
  return page(`${h.serviceName} Web Service - ${op.name}`, parts.join('\r\n'));
}
