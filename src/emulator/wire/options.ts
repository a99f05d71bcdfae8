import type { GatewayStateOptions } from '../state/options';
import type { EmulatorControl, GatewayBackend } from '../contract';

/** Options of `startEmulator`. Wire options first; the rest is handed to the business state. */
export interface EmulatorOptions extends GatewayStateOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  gatewayNamespace?: string;
  legacyNamespace?: string;
  /** Path of the customer service (the spec does not show it), default /gateway/Customer.asmx. */
  customerPath?: string;
  /** HTTP GET binding (default true: the emulator is a sandbox; real ASMX has it off). */
  enableGet?: boolean;
  /** HTTP POST binding (default true). */
  enablePost?: boolean;
  /** Fault strings in the verbose stack-trace form instead of the short form. */
  verboseFaults?: boolean;
  /** Largest request body accepted; larger ones get 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** Simultaneous connections (default: unlimited). */
  maxConnections?: number;
  /** Deepest element nesting accepted in a request (default 64). */
  maxXmlDepth?: number;
  /** Longest attribute value accepted in a request (default 16 KiB). */
  maxAttributeLength?: number;
  /** Entries kept by GET /_emulator/requests (default 200). */
  requestLogSize?: number;
  /** The sandbox console at `/` and its event stream `/_emulator/events` (default true). */
  console?: boolean;
  /**
   * Host names, besides the bind address and `localhost`, under which the console and the control API may be
   * reached (e.g. a container name). Other Host headers get 403, as a guard against DNS rebinding.
   */
  allowedHosts?: readonly string[];
  /** Use this backend instead of a new GatewayState (tests, custom behaviour). */
  backend?: GatewayBackend & EmulatorControl;
}
