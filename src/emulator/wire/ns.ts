/** Namespaces the wire layer writes and recognises. */
export const NS = {
  soap11: 'http://schemas.xmlsoap.org/soap/envelope/',
  soap12: 'http://www.w3.org/2003/05/soap-envelope',
  enc11: 'http://schemas.xmlsoap.org/soap/encoding/',
  enc12: 'http://www.w3.org/2003/05/soap-encoding',
  rpc: 'http://www.w3.org/2003/05/soap-rpc',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  xsd: 'http://www.w3.org/2001/XMLSchema',
} as const;

export type SoapVersion = '1.1' | '1.2';

export const envelopeNs = (v: SoapVersion): string => (v === '1.1' ? NS.soap11 : NS.soap12);
export const encodingNs = (v: SoapVersion): string => (v === '1.1' ? NS.enc11 : NS.enc12);
export const soapContentType = (v: SoapVersion): string =>
  v === '1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8';

export const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';
