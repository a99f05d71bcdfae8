export { DEFAULT_MAX_RESPONSE_BYTES, exchange } from './http';
export type { BodyConsumer, ExchangeOptions, HttpRequest, ResponseHead } from './http';
export { createDispatcher, loadTransport } from './dispatcher';
export type { DispatcherOptions, TlsOptions } from './dispatcher';
export { errorCodeOf, networkError } from './errors';
export type { ExchangeProgress } from './errors';
