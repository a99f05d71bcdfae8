export { GatewayClient } from './client';
export type { ParamsOf, ResultOf, ValueOf } from './client';
export type { CallOptions, GatewayClientOptions, GatewayWarning, Transport } from './options';
export { methodName } from './names';
export type * from './types.generated';
export type * from './value-types';
