export { buildRequest, type BuildOptions, type Transport, type WireRequest } from './request';
export { createResponseDecoder, type DecodeOptions, type ResponseDecoder } from './decode';
export { parseLegacyDate, parseLegacyResult, type LegacyParseOptions, type LegacyResult } from './legacy';
export { readTargetNamespace } from './wsdl';
export { NS as SOAP_NAMESPACES } from './ns';
