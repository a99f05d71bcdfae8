export { GatewayClient } from './client';
export type { ParamsOf, ResultOf, ValueOf } from './client';
export type { CallOptions, GatewayClientOptions, GatewayWarning, Transport } from './options';
export type { InvokeOptions, InvokeTarget } from './invoke';
export type { InvokeLimits } from '../generic/limits';
export { DEFAULT_INVOKE_LIMITS } from '../generic/limits';
export { methodName } from './names';
export type * from './types.generated';
export type * from './value-types';
