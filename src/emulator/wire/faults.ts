import { escapeText } from '../../soap/escape';
import { NS, XML_DECL, envelopeNs, type SoapVersion } from './ns';

export type FaultCode = 'Client' | 'Server' | 'VersionMismatch' | 'MustUnderstand';

/**
 * A SOAP fault as ASMX raises it. `messages` is the exception chain, outermost first; `types` names the .NET
 * exception class of each link, used only by the verbose (stack-trace) form.
 */
export class WireFault extends Error {
  constructor(
    readonly code: FaultCode,
    readonly messages: readonly string[],
    readonly types: readonly string[] = [],
    readonly detail = true,
    /** A `soap12:Upgrade` header listing the envelopes the service takes (ASMX adds it to VersionMismatch). */
    readonly upgrade = false,
  ) {
    super(messages.join(' ---> '));
    this.name = 'WireFault';
  }
}

const SOAP_EXCEPTION = 'System.Web.Services.Protocols.SoapException';

export const unableToRead = (...inner: string[]): WireFault =>
  new WireFault(
    'Client',
    ['Server was unable to read request.', ...inner],
    [SOAP_EXCEPTION, 'System.InvalidOperationException', 'System.FormatException'],
  );

export const unableToProcess = (inner: string, innerType = 'System.Exception'): WireFault =>
  new WireFault('Server', ['Server was unable to process request.', inner], [SOAP_EXCEPTION, innerType]);

export const clientFault = (message: string): WireFault =>
  new WireFault('Client', [message], [SOAP_EXCEPTION]);

/**
 * An Envelope in a namespace that is neither SOAP version. ASMX's SOAP 1.1 helper answers it (SOAP 1.1 is
 * enabled), naming the 1.1 namespace, with the Upgrade header since SOAP 1.2 is enabled too.
 */
export const versionMismatch = (ns: string): WireFault =>
  new WireFault(
    'VersionMismatch',
    [`Possible SOAP version mismatch: Envelope namespace ${ns} was unexpected. Expecting ${NS.soap11}.`],
    [SOAP_EXCEPTION],
    true,
    true,
  );

/** What XmlElement.WriteTo writes for the Upgrade header: attributes in creation order, redundant xmlns kept. */
const UPGRADE_HEADER =
  `<soap12:Upgrade xmlns:soap12="${NS.soap12}">` +
  `<soap12:SupportedEnvelope qname="soap:Envelope" xmlns:soap="${NS.soap11}" />` +
  `<soap12:SupportedEnvelope qname="soap12:Envelope" xmlns:soap12="${NS.soap12}" />` +
  '</soap12:Upgrade>';

/** The two faultstring forms of §6.4: short (messages joined) or verbose (Exception.ToString() with frames). */
export function faultText(fault: WireFault, verbose: boolean): string {
  if (!verbose) return fault.messages.join(' ---> ');
  const [first = '', ...rest] = fault.messages;
  let text = `${fault.types[0] ?? SOAP_EXCEPTION}: ${first}`;
  rest.forEach((m, i) => {
    text += ` ---> ${fault.types[i + 1] ?? 'System.Exception'}: ${m}`;
  });
  text += '\n   at SmsGateway.Emulator.WebService.Invoke()';
  for (let i = 0; i < rest.length; i++) text += '\n   --- End of inner exception stack trace ---';
  text += '\n   at System.Web.Services.Protocols.SoapServerProtocol.ReadParameters()';
  return text;
}

function faultCodeName(code: FaultCode, version: SoapVersion): string {
  if (version === '1.1') return code;
  if (code === 'Client') return 'Sender';
  if (code === 'Server') return 'Receiver';
  return code;
}

export function writeSoapFault(fault: WireFault, version: SoapVersion, verbose: boolean): string {
  const text = escapeText(faultText(fault, verbose));
  const code = `soap:${faultCodeName(fault.code, version)}`;
  const header = fault.upgrade ? `<soap:Header>${UPGRADE_HEADER}</soap:Header>` : '';
  const head = `${XML_DECL}<soap:Envelope xmlns:soap="${envelopeNs(version)}" xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}">${header}<soap:Body><soap:Fault>`;
  const tail = '</soap:Fault></soap:Body></soap:Envelope>';
  if (version === '1.1') {
    return `${head}<faultcode>${code}</faultcode><faultstring>${text}</faultstring>${fault.detail ? '<detail />' : ''}${tail}`;
  }
  return (
    `${head}<soap:Code><soap:Value>${code}</soap:Value></soap:Code>` +
    `<soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason>${fault.detail ? '<soap:Detail />' : ''}${tail}`
  );
}

const READER_FRAMES = [
  'System.Web.Services.Protocols.ValueCollectionParameterReader.Read(NameValueCollection collection)',
  'System.Web.Services.Protocols.HttpServerProtocol.ReadParameters()',
  'System.Web.Services.Protocols.WebServiceHandler.CoreProcessRequest()',
];

/** Where the Discovery protocol throws (`?wsdl=<id>` naming no document). */
export const DISCOVERY_FRAMES = [
  'System.Web.Services.Protocols.DiscoveryServerProtocol.WriteReturns(Object[] returnValues, Stream outputStream)',
  'System.Web.Services.Protocols.WebServiceHandler.WriteReturns(Object[] returnValues)',
  'System.Web.Services.Protocols.WebServiceHandler.Invoke()',
  'System.Web.Services.Protocols.WebServiceHandler.CoreProcessRequest()',
];

/**
 * An error of the HTTP GET/POST channel (§6.5), or of the Discovery protocol (its WriteException is the same):
 * one exception, written as text/plain, HTML-encoded.
 */
export class FormError extends Error {
  constructor(
    readonly dotnetType: string,
    message: string,
    readonly inner?: { type: string; message: string },
    /** Stack frames of the verbose form; the default is the parameter reader's. */
    readonly frames: readonly string[] = READER_FRAMES,
  ) {
    super(message);
    this.name = 'FormError';
  }
}

const htmlEncode = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/**
 * ServerProtocol.GenerateFaultString(e, htmlEscapeMessage: true): each exception's message is HTML-encoded on
 * its own and the chain is joined with a literal ` ---> ` (type names and stack frames are not encoded).
 */
export function formErrorText(err: FormError, verbose: boolean): string {
  let text: string;
  if (verbose) {
    text = `${err.dotnetType}: ${htmlEncode(err.message)}`;
    if (err.inner)
      text += ` ---> ${err.inner.type}: ${htmlEncode(err.inner.message)}\r\n   --- End of inner exception stack trace ---`;
    for (const frame of err.frames) text += `\r\n   at ${frame}`;
  } else {
    text = htmlEncode(err.message);
    if (err.inner) text += ` ---> ${htmlEncode(err.inner.message)}`;
  }
  return `${text}\r\n`;
}

/**
 * ASP.NET's yellow error page, for a request no protocol takes (§6.5 last row): an InvalidOperationException
 * (500), or the HttpException of a verb the protocols refuse (405).
 */
export function aspNetErrorPage(
  message: string,
  path: string,
  exceptionType = 'System.InvalidOperationException',
): string {
  const m = htmlEncode(message);
  return (
    `<!DOCTYPE html>\r\n<html>\r\n    <head>\r\n        <title>${m}</title>\r\n    </head>\r\n` +
    `    <body bgcolor="white">\r\n            <span><H1>Server Error in '/' Application.<hr width=100% size=1 color=silver></H1>\r\n` +
    `            <h2> <i>${m}</i> </h2></span>\r\n` +
    `            <b> Description: </b>An unhandled exception occurred during the execution of the current web request.<br><br>\r\n` +
    `            <b> Exception Details: </b>${exceptionType}: ${m}<br><br>\r\n` +
    `            <b> Requested URL: </b>${htmlEncode(path)}<br><br>\r\n    </body>\r\n</html>\r\n`
  );
}

export function serviceUnavailablePage(): string {
  return (
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN""http://www.w3.org/TR/html4/strict.dtd">\r\n' +
    '<HTML><HEAD><TITLE>Service Unavailable</TITLE>\r\n' +
    '<META HTTP-EQUIV="Content-Type" Content="text/html; charset=us-ascii"></HEAD>\r\n' +
    '<BODY><h2>Service Unavailable</h2>\r\n<hr><p>HTTP Error 503. The service is unavailable.</p>\r\n</BODY></HTML>\r\n'
  );
}
