export { createConsole, SECURITY_HEADERS, type ConsoleOptions, type SandboxConsole } from './handler';
export { ConsoleFeed, type BalancePoint, type FeedEvent, type FeedOptions } from './feed';
export { allowedHost, allowedOrigin, parseHostHeader, type BindAddress } from './host-guard';
export type { ConsoleAccount, ConsoleInbound, ConsoleJob, ConsoleReport, ConsoleState } from './view';
