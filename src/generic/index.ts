export { buildGenericRequest, GenericRequestError, type GenericRequest } from './request';
export { createGenericDecoder, type GenericDecodeOptions } from './response';
export { DEFAULT_INVOKE_LIMITS, resolveInvokeLimits, type InvokeLimits } from './limits';
