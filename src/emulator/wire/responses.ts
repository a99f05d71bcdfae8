import { encodedTypesNamespace } from '../../catalogue';
import type { Catalogue } from '../../catalogue/catalogue';
import type { OperationDef } from '../../catalogue/types';
import { EncodedWriter } from './encoded';
import { escapeText } from '../../soap/escape';
import { NS, XML_DECL, encodingNs, envelopeNs, type SoapVersion } from './ns';
import { complexContent, literalElement, scalarText } from './serialize';

const ENVELOPE_NS = (v: SoapVersion): string =>
  `xmlns:soap="${envelopeNs(v)}" xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}"`;

/** Document/literal: `<OpResponse xmlns="ns"><OpResult>…</OpResult></OpResponse>` on one line. */
function literalResponse(
  op: OperationDef,
  ns: string,
  version: SoapVersion,
  result: unknown,
  catalogue: Catalogue,
): string {
  const inner = literalElement(`${op.name}Result`, op.result.type, result, 0, false, catalogue);
  const wrapper = inner
    ? `<${op.name}Response xmlns="${ns}">${inner}</${op.name}Response>`
    : `<${op.name}Response xmlns="${ns}" />`;
  return `${XML_DECL}<soap:Envelope ${ENVELOPE_NS(version)}><soap:Body>${wrapper}</soap:Body></soap:Envelope>`;
}

/** RPC/encoded (§5.4 / §5.5): prefixed wrapper, unqualified accessor with xsi:type, rpc:result first on 1.2. */
function encodedResponse(
  op: OperationDef,
  ns: string,
  version: SoapVersion,
  result: unknown,
  catalogue: Catalogue,
): string {
  const name = `${op.name}Result`;
  const writer = new EncodedWriter(version, catalogue);
  const accessor = writer.accessor(name, op.result.type, result);
  const decls =
    `xmlns:soap="${envelopeNs(version)}" xmlns:soapenc="${encodingNs(version)}" xmlns:tns="${ns}" ` +
    `xmlns:types="${encodedTypesNamespace(ns)}"${version === '1.2' ? ` xmlns:rpc="${NS.rpc}"` : ''} xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}"`;
  const body = version === '1.1' ? `<soap:Body soap:encodingStyle="${NS.enc11}">` : '<soap:Body>';
  const rpcResult = version === '1.2' ? `<rpc:result xmlns="">${name}</rpc:result>` : '';
  return (
    `${XML_DECL}<soap:Envelope ${decls}>${body}<tns:${op.name}Response>${rpcResult}${accessor}` +
    `</tns:${op.name}Response>${writer.trailer}</soap:Body></soap:Envelope>`
  );
}

export function writeSoapResponse(
  op: OperationDef,
  ns: string,
  version: SoapVersion,
  result: unknown,
  catalogue: Catalogue,
): string {
  return op.style === 'rpc'
    ? encodedResponse(op, ns, version, result, catalogue)
    : literalResponse(op, ns, version, result, catalogue);
}

/** HTTP GET/POST (§7.3): the bare result named per the catalogue, indented with CRLF. */
export function writeBareResponse(
  op: OperationDef,
  ns: string,
  result: unknown,
  catalogue: Catalogue,
): string {
  const { type, bare } = op.result;
  const head = `${XML_DECL}\r\n`;
  const xsiXsd = `xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}"`;
  if (result === undefined || (result === null && !(type.kind === 'primitive' && type.name === 'dateTime'))) {
    return `${head}<${bare} xmlns:xsi="${NS.xsi}" xsi:nil="true" xmlns="${ns}" />`;
  }
  if (type.kind === 'primitive' || type.kind === 'enum') {
    const text = escapeText(scalarText(type, result));
    return text ? `${head}<${bare} xmlns="${ns}">${text}</${bare}>` : `${head}<${bare} xmlns="${ns}" />`;
  }
  let inner = '';
  if (type.kind === 'complex') inner = complexContent(type.name, result, 1, true, catalogue);
  else if (Array.isArray(result)) {
    for (const item of result) {
      inner +=
        item === null || item === undefined
          ? `\r\n  <${type.itemElement} xsi:nil="true" />`
          : literalElement(type.itemElement, type.item, item, 1, true, catalogue);
    }
  }
  return inner
    ? `${head}<${bare} ${xsiXsd} xmlns="${ns}">${inner}\r\n</${bare}>`
    : `${head}<${bare} ${xsiXsd} xmlns="${ns}" />`;
}
