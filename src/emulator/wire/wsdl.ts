import { encodedTypesNamespace, soapAction, type Catalogue } from '../../catalogue';
import type { OperationDef, ParamDef, TypeRef } from '../../catalogue/types';
import { escapeAttr, escapeText } from '../../soap/escape';
import { NS, XML_DECL } from './ns';

/**
 * WSDL 1.1 in the shape ASMX generates (§3.3, §5.6, §9.2), derived from the catalogue. Written indented
 * like the real generator; the content is what matters to generic clients (node-soap, strong-soap, wsdl.exe).
 */
export interface WsdlInput {
  /** Name of the WSDL service and prefix of its port types / bindings. */
  serviceName: string;
  ns: string;
  ops: readonly OperationDef[];
  /** Where the operations' types are defined. */
  catalogue: Catalogue;
  location: string;
  enableGet: boolean;
  enablePost: boolean;
}

const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/';
const HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http';
const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function typeLocalName(type: TypeRef): string {
  switch (type.kind) {
    case 'primitive':
    case 'enum':
    case 'complex':
      return type.name;
    case 'list':
      return `ArrayOf${pascal(typeLocalName(type.item))}`;
  }
}

const isValueType = (type: TypeRef): boolean =>
  type.kind === 'enum' ||
  (type.kind === 'primitive' && ['int', 'double', 'boolean', 'dateTime'].includes(type.name));

const qname = (type: TypeRef, tns = 'tns'): string =>
  type.kind === 'primitive' ? `s:${type.name}` : `${tns}:${typeLocalName(type)}`;

function elementDecl(name: string, type: TypeRef, pad: string, tns = 'tns'): string {
  const min = isValueType(type) ? 1 : 0;
  return `${pad}<s:element minOccurs="${min}" maxOccurs="1" name="${name}" type="${qname(type, tns)}" />\n`;
}

/** Every enum, complex and list type reachable from `roots`, in first-seen order. */
function collectTypes(roots: TypeRef[], catalogue: Catalogue): TypeRef[] {
  const seen = new Map<string, TypeRef>();
  const visit = (t: TypeRef): void => {
    if (t.kind === 'primitive') return;
    const key = `${t.kind}:${typeLocalName(t)}`;
    if (seen.has(key)) return;
    seen.set(key, t);
    if (t.kind === 'list') visit(t.item);
    if (t.kind === 'complex') for (const f of catalogue.complexType(t.name).fields) visit(f.type);
  };
  roots.forEach(visit);
  return [...seen.values()];
}

function namedTypeDecl(t: TypeRef, catalogue: Catalogue, tns = 'tns'): string {
  if (t.kind === 'enum') {
    const values = catalogue
      .enumType(t.name)
      .values.map((v) => `          <s:enumeration value="${escapeAttr(v)}" />\n`)
      .join('');
    return `      <s:simpleType name="${t.name}">\n        <s:restriction base="s:string">\n${values}        </s:restriction>\n      </s:simpleType>\n`;
  }
  if (t.kind === 'list') {
    const nillable = isValueType(t.item) ? '' : ' nillable="true"';
    return (
      `      <s:complexType name="${typeLocalName(t)}">\n        <s:sequence>\n` +
      `          <s:element minOccurs="0" maxOccurs="unbounded" name="${t.itemElement}"${nillable} type="${qname(t.item, tns)}" />\n` +
      `        </s:sequence>\n      </s:complexType>\n`
    );
  }
  if (t.kind === 'complex') {
    const fields = catalogue
      .complexType(t.name)
      .fields.map((f) => elementDecl(f.name, f.type, '          ', tns))
      .join('');
    return `      <s:complexType name="${t.name}">\n        <s:sequence>\n${fields}        </s:sequence>\n      </s:complexType>\n`;
  }
  return '';
}

const isFormArray = (p: ParamDef): boolean =>
  p.type.kind === 'list' || (p.type.kind === 'primitive' && p.type.name === 'base64Binary');

export function generateWsdl(w: WsdlInput): string {
  const { ns, ops, serviceName: svc, catalogue } = w;
  const docOps = ops.filter((o) => o.style === 'document');
  const rpcOps = ops.filter((o) => o.style === 'rpc');
  const httpProtocols = [...(w.enableGet ? ['Get'] : []), ...(w.enablePost ? ['Post'] : [])];
  const encNs = encodedTypesNamespace(ns);
  const absNs = `${ns.replace(/\/$/, '')}/AbstractTypes`;

  // ---- literal schema
  let literal = `    <s:schema elementFormDefault="qualified" targetNamespace="${escapeAttr(ns)}">\n`;
  for (const op of docOps) {
    const params = op.params.map((p) => elementDecl(p.name, p.type, '            ')).join('');
    literal +=
      `      <s:element name="${op.name}">\n        <s:complexType>\n          <s:sequence>\n${params}          </s:sequence>\n        </s:complexType>\n      </s:element>\n` +
      `      <s:element name="${op.name}Response">\n        <s:complexType>\n          <s:sequence>\n` +
      elementDecl(`${op.name}Result`, op.result.type, '            ') +
      `          </s:sequence>\n        </s:complexType>\n      </s:element>\n`;
  }
  const literalRoots = [...docOps.flatMap((o) => [...o.params.map((p) => p.type), o.result.type])];
  if (httpProtocols.length) literalRoots.push(...ops.map((o) => o.result.type));
  for (const t of collectTypes(literalRoots, catalogue)) literal += namedTypeDecl(t, catalogue);
  if (httpProtocols.length) {
    const bares = new Map<string, TypeRef>();
    for (const op of ops) bares.set(op.result.bare, op.result.type);
    for (const [bare, type] of bares)
      literal += `      <s:element name="${bare}" nillable="true" type="${qname(type)}" />\n`;
  }
  literal += '    </s:schema>\n';

  // ---- encoded schema (section-5 arrays) for the RPC operations
  let encoded = '';
  if (rpcOps.length) {
    // .NET writes elementFormDefault="qualified" on this schema too, though its section-5 types declare no element.
    encoded = `    <s:schema elementFormDefault="qualified" targetNamespace="${escapeAttr(encNs)}">\n      <s:import namespace="${NS.enc11}" />\n      <s:import namespace="${WSDL_NS}" />\n`;
    const rpcRoots = rpcOps.flatMap((o) => [...o.params.map((p) => p.type), o.result.type]);
    for (const t of collectTypes(rpcRoots, catalogue)) {
      if (t.kind === 'list') {
        encoded +=
          `      <s:complexType name="${typeLocalName(t)}">\n        <s:complexContent mixed="false">\n          <s:restriction base="soapenc:Array">\n` +
          `            <s:attribute wsdl:arrayType="${qname(t.item, 's1')}[]" ref="soapenc:arrayType" />\n` +
          `          </s:restriction>\n        </s:complexContent>\n      </s:complexType>\n`;
      } else encoded += namedTypeDecl(t, catalogue, 's1');
    }
    encoded += '    </s:schema>\n';
  }

  let abstract = '';
  if (httpProtocols.length && ops.some((o) => o.params.some(isFormArray))) {
    abstract =
      // StringArray restricts soapenc:Array without a wsdl:arrayType attribute: only soapenc is imported.
      `    <s:schema targetNamespace="${escapeAttr(absNs)}">\n      <s:import namespace="${NS.enc11}" />\n` +
      `      <s:complexType name="StringArray">\n        <s:complexContent mixed="false">\n          <s:restriction base="soapenc:Array">\n` +
      `            <s:sequence>\n              <s:element minOccurs="0" maxOccurs="unbounded" name="String" type="s:string" />\n            </s:sequence>\n` +
      `          </s:restriction>\n        </s:complexContent>\n      </s:complexType>\n    </s:schema>\n`;
  }

  // ---- messages
  let messages = '';
  for (const op of ops) {
    if (op.style === 'document') {
      messages +=
        `  <wsdl:message name="${op.name}SoapIn">\n    <wsdl:part name="parameters" element="tns:${op.name}" />\n  </wsdl:message>\n` +
        `  <wsdl:message name="${op.name}SoapOut">\n    <wsdl:part name="parameters" element="tns:${op.name}Response" />\n  </wsdl:message>\n`;
    } else {
      const parts = op.params
        .map((p) => `    <wsdl:part name="${p.name}" type="${qname(p.type, 's1')}" />\n`)
        .join('');
      messages +=
        `  <wsdl:message name="${op.name}SoapIn">\n${parts}  </wsdl:message>\n` +
        `  <wsdl:message name="${op.name}SoapOut">\n    <wsdl:part name="${op.name}Result" type="${qname(op.result.type, 's1')}" />\n  </wsdl:message>\n`;
    }
  }
  for (const proto of httpProtocols) {
    for (const op of ops) {
      const parts = op.params
        .map(
          (p) =>
            `    <wsdl:part name="${p.name}" type="${isFormArray(p) ? 's2:StringArray' : 's:string'}" />\n`,
        )
        .join('');
      messages +=
        `  <wsdl:message name="${op.name}Http${proto}In">\n${parts}  </wsdl:message>\n` +
        `  <wsdl:message name="${op.name}Http${proto}Out">\n    <wsdl:part name="Body" element="tns:${op.result.bare}" />\n  </wsdl:message>\n`;
    }
  }

  // ---- port types
  const portType = (suffix: string, msg: string): string =>
    `  <wsdl:portType name="${svc}${suffix}">\n` +
    ops
      .map(
        (op) =>
          `    <wsdl:operation name="${op.name}">\n      <wsdl:documentation xmlns:wsdl="${WSDL_NS}">${escapeText(op.doc)}</wsdl:documentation>\n` +
          `      <wsdl:input message="tns:${op.name}${msg}In" />\n      <wsdl:output message="tns:${op.name}${msg}Out" />\n    </wsdl:operation>\n`,
      )
      .join('') +
    `  </wsdl:portType>\n`;
  let portTypes = portType('Soap', 'Soap');
  for (const proto of httpProtocols) portTypes += portType(`Http${proto}`, `Http${proto}`);

  // ---- bindings
  const soapBinding = (prefix: 'soap' | 'soap12', suffix: string, encNamespace: string): string =>
    `  <wsdl:binding name="${svc}${suffix}" type="tns:${svc}Soap">\n    <${prefix}:binding transport="${HTTP_TRANSPORT}" />\n` +
    ops
      .map((op) => {
        const body =
          op.style === 'rpc'
            ? `<${prefix}:body use="encoded" namespace="${escapeAttr(ns)}" encodingStyle="${encNamespace}" />`
            : `<${prefix}:body use="literal" />`;
        return (
          `    <wsdl:operation name="${op.name}">\n      <${prefix}:operation soapAction="${escapeAttr(soapAction(ns, op.name))}" style="${op.style}" />\n` +
          `      <wsdl:input>\n        ${body}\n      </wsdl:input>\n      <wsdl:output>\n        ${body}\n      </wsdl:output>\n    </wsdl:operation>\n`
        );
      })
      .join('') +
    `  </wsdl:binding>\n`;
  let bindings = soapBinding('soap', 'Soap', NS.enc11) + soapBinding('soap12', 'Soap12', NS.enc12);
  for (const proto of httpProtocols) {
    const input =
      proto === 'Get' ? '<http:urlEncoded />' : '<mime:content type="application/x-www-form-urlencoded" />';
    bindings +=
      `  <wsdl:binding name="${svc}Http${proto}" type="tns:${svc}Http${proto}">\n    <http:binding verb="${proto.toUpperCase()}" />\n` +
      ops
        .map(
          (op) =>
            `    <wsdl:operation name="${op.name}">\n      <http:operation location="/${op.name}" />\n` +
            `      <wsdl:input>\n        ${input}\n      </wsdl:input>\n      <wsdl:output>\n        <mime:mimeXml part="Body" />\n      </wsdl:output>\n    </wsdl:operation>\n`,
        )
        .join('') +
      `  </wsdl:binding>\n`;
  }

  const loc = escapeAttr(w.location);
  let ports =
    `    <wsdl:port name="${svc}Soap" binding="tns:${svc}Soap">\n      <soap:address location="${loc}" />\n    </wsdl:port>\n` +
    `    <wsdl:port name="${svc}Soap12" binding="tns:${svc}Soap12">\n      <soap12:address location="${loc}" />\n    </wsdl:port>\n`;
  for (const proto of httpProtocols) {
    ports += `    <wsdl:port name="${svc}Http${proto}" binding="tns:${svc}Http${proto}">\n      <http:address location="${loc}" />\n    </wsdl:port>\n`;
  }

  return (
    `${XML_DECL}\n<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tm="http://microsoft.com/wsdl/mime/textMatching/" ` +
    `xmlns:soapenc="${NS.enc11}" xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/" xmlns:tns="${escapeAttr(ns)}" ` +
    `xmlns:s1="${escapeAttr(encNs)}" xmlns:s2="${escapeAttr(absNs)}" xmlns:s="${NS.xsd}" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" ` +
    `xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" targetNamespace="${escapeAttr(ns)}" xmlns:wsdl="${WSDL_NS}">\n` +
    `  <wsdl:types>\n${literal}${encoded}${abstract}  </wsdl:types>\n${messages}${portTypes}${bindings}` +
    `  <wsdl:service name="${svc}">\n${ports}  </wsdl:service>\n</wsdl:definitions>`
  );
}
