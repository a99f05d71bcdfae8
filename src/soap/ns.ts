/** Namespace URIs the codec speaks (asmx-wire.md §3–§5). */
export const NS = {
  soap11: 'http://schemas.xmlsoap.org/soap/envelope/',
  soap12: 'http://www.w3.org/2003/05/soap-envelope',
  enc11: 'http://schemas.xmlsoap.org/soap/encoding/',
  enc12: 'http://www.w3.org/2003/05/soap-encoding',
  rpc12: 'http://www.w3.org/2003/05/soap-rpc',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  xsd: 'http://www.w3.org/2001/XMLSchema',
} as const;
