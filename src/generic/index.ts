export { buildGenericRequest, GenericRequestError, type GenericRequest } from './request';
export { createGenericDecoder, type GenericDecodeOptions } from './response';
