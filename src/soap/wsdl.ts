/** The one thing the client reads from a service's WSDL: its target namespace (asmx-wire.md §9.2). */
import { SaxesParser } from 'saxes';
import { GatewayError } from '../errors';

class Found extends Error {
  constructor(readonly namespace: string | undefined) {
    super('found');
  }
}

/** Reads `targetNamespace` from the root `definitions` element; throws GatewayError('PARSE') if there is none. */
export function readTargetNamespace(wsdl: string): string {
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('opentag', (tag) => {
    const i = tag.name.indexOf(':');
    const local = i < 0 ? tag.name : tag.name.slice(i + 1);
    if (local !== 'definitions') throw new Error(`expected a WSDL definitions element, found <${tag.name}>`);
    // Only the root matters: stop reading there.
    throw new Found(tag.attributes.targetNamespace);
  });
  let ns: string | undefined;
  try {
    parser.write(wsdl).close();
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
