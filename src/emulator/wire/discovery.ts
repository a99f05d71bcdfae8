import { escapeAttr } from '../../soap/escape';
import { NS, XML_DECL } from './ns';

/**
 * GET on the bare service path, as ASMX's last two protocol factories split it (asmx-wire §9.1): the Discovery
 * protocol takes `?wsdl`, `?disco`, `?wsdl=<id>` and `?schema=<id>`; the Documentation protocol every other query
 * (help page, `?op=`).
 */

/**
 * A query string as ASP.NET's HttpValueCollection reads it: a part without `=` is a value of the null key and a
 * repeated key's values are joined with `,` (so `?wsdl&x=1` is still the WSDL, `?wsdl&` is not). Keys are looked
 * up ignoring case.
 */
export class AspNetQuery {
  private readonly values = new Map<string | null, string[]>();

  constructor(query: string) {
    // FillFromString adds one pair per `&`-separated part, empty parts included ("a&" ends with an empty value).
    if (query === '') return;
    for (const part of query.split('&')) {
      const eq = part.indexOf('=');
      if (eq < 0) this.add(null, urlDecode(part));
      else this.add(urlDecode(part.slice(0, eq)).toLowerCase(), urlDecode(part.slice(eq + 1)));
    }
  }

  private add(key: string | null, value: string): void {
    const list = this.values.get(key);
    if (list) list.push(value);
    else this.values.set(key, [value]);
  }

  /** QueryString[name]: the values joined with `,`, undefined when the key is absent. */
  get(name: string | null): string | undefined {
    return this.values.get(name === null ? null : name.toLowerCase())?.join(',');
  }
}

/** HttpUtility.UrlDecode: `+` is a space; a broken escape stays as it was. */
function urlDecode(s: string): string {
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus.replace(/(%[0-9a-fA-F]{2})+/g, (seq) => {
      try {
        return decodeURIComponent(seq);
      } catch {
        return seq;
      }
    });
  }
}

export type DocumentationRoute =
  | { kind: 'wsdl' }
  | { kind: 'disco' }
  /** `?wsdl=<id>` / `?schema=<id>`: an imported document; this service has none. */
  | { kind: 'wsdlId'; id: string }
  | { kind: 'schemaId'; id: string }
  | { kind: 'help'; op: string | undefined };

/** DiscoveryServerProtocolFactory, then DiscoveryServerProtocol.WriteReturns, in their order of tests. */
export function documentationRoute(query: AspNetQuery): DocumentationRoute {
  const schema = query.get('schema');
  if (schema !== undefined) return { kind: 'schemaId', id: schema };
  const wsdl = query.get('wsdl');
  if (wsdl !== undefined) return { kind: 'wsdlId', id: wsdl };
  const bare = (query.get(null) ?? '').toLowerCase();
  if (bare === 'wsdl') return { kind: 'wsdl' };
  if (bare === 'disco') return { kind: 'disco' };
  return { kind: 'help', op: query.get('op') };
}

const DISCO = 'http://schemas.xmlsoap.org/disco/';

/**
 * `?disco`: DiscoveryDocument as XmlSerializer writes it (indented by two, CRLF, no line break at the end): the
 * WSDL's address, then one `soap` reference per SOAP port (1.1 and 1.2; the HTTP GET/POST ports have no SOAP
 * address), each binding QName with its own generated prefix.
 */
export function discoDocument(location: string, ns: string, serviceName: string): string {
  const loc = escapeAttr(location);
  const tns = escapeAttr(ns);
  const soap = (i: number, binding: string): string =>
    `  <soap address="${loc}" xmlns:q${i}="${tns}" binding="q${i}:${escapeAttr(binding)}" xmlns="${DISCO}soap/" />`;
  return [
    XML_DECL,
    `<discovery xmlns:xsd="${NS.xsd}" xmlns:xsi="${NS.xsi}" xmlns="${DISCO}">`,
    `  <contractRef ref="${loc}?wsdl" docRef="${loc}" xmlns="${DISCO}scl/" />`,
    soap(1, `${serviceName}Soap`),
    soap(2, `${serviceName}Soap12`),
    '</discovery>',
  ].join('\r\n');
}
