/** The one thing the client reads from a service's WSDL: its target namespace (asmx-wire.md §9.2). */
import { GatewayError } from '../errors';
import { XmlScanner } from './xml-scanner';

class Found extends Error {
  constructor(readonly namespace: string | undefined) {
    super('found');
  }
}

const ignore = (): void => undefined;

/** Reads `targetNamespace` from the root `definitions` element; throws GatewayError('PARSE') if there is none. */
export function readTargetNamespace(wsdl: string): string {
  const scanner = new XmlScanner({
    open(name, attrs) {
      const i = name.indexOf(':');
      const local = i < 0 ? name : name.slice(i + 1);
      if (local !== 'definitions') throw new Error(`expected a WSDL definitions element, found <${name}>`);
      // Only the root matters: stop reading there.
      let ns: string | undefined;
      for (let a = 0; attrs !== null && a < attrs.length; a += 2) {
        if (attrs[a] === 'targetNamespace') ns = attrs[a + 1];
      }
      throw new Found(ns);
    },
    close: ignore,
    text: ignore,
    cdata: ignore,
  });
  let ns: string | undefined;
  try {
    scanner.parse(wsdl);
    throw new Error('no root element');
  } catch (e) {
    if (e instanceof Found) ns = e.namespace;
    else {
      const why = e instanceof Error ? e.message : String(e);
      throw new GatewayError('PARSE', `cannot read the WSDL: ${why}`, { body: wsdl.slice(0, 200), cause: e });
    }
  }
  if (!ns) throw new GatewayError('PARSE', 'the WSDL has no targetNamespace', { body: wsdl.slice(0, 200) });
  return ns;
}
