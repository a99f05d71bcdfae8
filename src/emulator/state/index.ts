export { GatewayState, type JobSummary } from './gateway-state';
export type { AccountSeed, GatewayStateOptions, TimingOptions } from './options';
export { DEFAULT_PRICES } from './options';
export { countSegments, type SegmentInfo } from './segments';
