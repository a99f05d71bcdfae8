import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CATALOGUE, DEFAULT_NAMESPACES, DEFAULT_PATHS, namespaceKind } from '../catalogue';
import type { ServiceName } from '../catalogue/types';
import type { EmulatorControl, GatewayBackend } from './contract';
import { createConsole, type SandboxConsole } from './console';
import { GatewayState } from './state';
import { FaultInjector } from './wire/fault-injection';
import { StatusForcer } from './wire/forced-status';
import type { EmulatorOptions } from './wire/options';
import { RequestLog } from './wire/request-log';
import { createRequestHandler, type ServiceEntry } from './wire/server';
import { DEFAULT_XML_LIMITS } from './wire/xml-tree';

export type { EmulatorOptions } from './wire/options';
export type { FaultKind, FaultSpec } from './wire/fault-injection';
export { FaultInjector } from './wire/fault-injection';
export type { ForcedStatus, ForcedStatusSpec, StatusEnum } from './wire/forced-status';
export { StatusForcer } from './wire/forced-status';
export type { RequestLogEntry } from './wire/request-log';
export type * from './contract';
export { GatewayState } from './state';
export type { GatewayStateOptions } from './state';

export type EmulatorBackend = GatewayBackend & EmulatorControl;

export interface RunningEmulator<B extends EmulatorBackend = GatewayState> {
  /** Base URL, e.g. `http://127.0.0.1:41234` (service paths are below it). */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** The business state (GatewayState unless a backend was passed). */
  readonly state: B;
  /** Same object as `state`, typed as the control interface. */
  readonly control: EmulatorControl;
  readonly faults: FaultInjector;
  /** LoginStatus / CreateStatus / ParseStatus answers forced for the next calls. */
  readonly statuses: StatusForcer;
  readonly requests: RequestLog;
  readonly server: Server;
  /** The sandbox console (undefined with `console: false`). */
  readonly sandboxConsole: SandboxConsole | undefined;
  close(): Promise<void>;
}

const WSDL_NAMES: Record<ServiceName, string> = {
  information: 'Information',
  send: 'Send',
  customer: 'Customer',
  legacy: 'SMSSend',
};

function createState<B extends EmulatorBackend>(
  options: Omit<EmulatorOptions, 'backend'> & { backend?: B },
): B {
  // Without a backend B is its default, GatewayState.
  return options.backend ?? (new GatewayState(options) as EmulatorBackend as B);
}

export function serviceEntries(options: EmulatorOptions): ServiceEntry[] {
  const ns = {
    gateway: options.gatewayNamespace ?? DEFAULT_NAMESPACES.gateway,
    legacy: options.legacyNamespace ?? DEFAULT_NAMESPACES.legacy,
  };
  const catalogue = options.catalogue ?? CATALOGUE;
  const paths: Record<ServiceName, string> = {
    ...DEFAULT_PATHS,
    customer: options.customerPath ?? DEFAULT_PATHS.customer,
  };
  return (Object.keys(paths) as ServiceName[]).map((service) => ({
    service,
    path: paths[service],
    ns: ns[namespaceKind(service)],
    ops: catalogue.of(service),
    catalogue,
    wsdlName: WSDL_NAMES[service],
  }));
}

/** Connections served at once unless `maxConnections` says otherwise (more are refused by the kernel's backlog). */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** Starts the emulator: HTTP on host:port, all four services, the control API under /_emulator/. */
export async function startEmulator<B extends EmulatorBackend = GatewayState>(
  options: Omit<EmulatorOptions, 'backend'> & { backend?: B } = {},
): Promise<RunningEmulator<B>> {
  const host = options.host ?? '127.0.0.1';
  const state = createState(options);
  const faults = new FaultInjector();
  const statuses = new StatusForcer(options.catalogue);
  const requests = new RequestLog(options.requestLogSize ?? 200);
  const bind = { host, port: 0, allowedHosts: options.allowedHosts ?? [] };
  const sandboxConsole =
    options.console === false
      ? undefined
      : createConsole({
          control: state,
          faults,
          log: requests,
          bind: () => bind,
          countryCode: options.defaultCountryCode,
          catalogue: options.catalogue,
        });
  const handler = createRequestHandler(
    {
      services: serviceEntries(options),
      enableGet: options.enableGet ?? true,
      enablePost: options.enablePost ?? true,
      verboseFaults: options.verboseFaults ?? false,
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      limits: {
        ...DEFAULT_XML_LIMITS,
        maxDepth: options.maxXmlDepth ?? DEFAULT_XML_LIMITS.maxDepth,
        maxAttributeLength: options.maxAttributeLength ?? DEFAULT_XML_LIMITS.maxAttributeLength,
      },
    },
    {
      backend: state,
      faults,
      statuses,
      log: requests,
      startedAt: Date.now(),
      ...(sandboxConsole ? { preHandler: sandboxConsole.handle } : {}),
    },
  );
  const server = createServer({ maxHeaderSize: 64 * 1024 }, handler);
  // A sandbox on a laptop or a Pi: a runaway client loop must not exhaust file descriptors.
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  server.on('clientError', (_err, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  bind.port = port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    state,
    control: state,
    faults,
    statuses,
    requests,
    server,
    sandboxConsole,
    close() {
      closing ??= new Promise<void>((resolve) => {
        sandboxConsole?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(async () => {
        const closable = state as Partial<{ close(): unknown }>;
        if (typeof closable.close === 'function') await closable.close();
      });
      return closing;
    },
  };
}
