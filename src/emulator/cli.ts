import { DEFAULT_NAMESPACES } from '../catalogue';
import { startEmulator, type RunningEmulator } from './index';
import type { EmulatorOptions } from './wire/options';

const HELP = `Usage: smsgw-emulator [options]

A local emulator of the SMS gateway's ASMX services (typed /gateway/*.asmx and the older /soap/send.asmx),
over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST, with WSDL, fault injection and a control API under /_emulator/.

Options:
  --host HOST           address to bind (default 127.0.0.1)
  --port PORT           port (default 8080; 0 picks a free one)
  --user NAME           demo account user (default demo)
  --password SECRET     demo account password (default demo-password)
  --balance CREDITS     demo account balance (default 100)
  --gateway-ns URI      namespace of the typed service (default ${DEFAULT_NAMESPACES.gateway})
  --legacy-ns URI       namespace of /soap/send.asmx (default ${DEFAULT_NAMESPACES.legacy})
  --customer-path PATH  path of the customer service (default /gateway/Customer.asmx)
  --state FILE          JSON file the state is loaded from and saved to
  --no-get, --no-post   switch off the HTTP GET / HTTP POST bindings
  --verbose-faults      fault strings in the stack-trace form
  --no-console          no sandbox console page at /
  --allow-host NAME     also accept this Host name for the console and control API (repeatable)
  --max-connections N   connections served at once (default 256)
  --max-jobs N          jobs kept per account; older finished ones are forgotten (default 10000)
  --caption-match MODE  how caption queries match: exact (default) or prefix (starts with)
  --help                this text

Prints "listening on http://HOST:PORT" once it accepts connections. SIGINT/SIGTERM stop it cleanly.
`;

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export interface CliArgs {
  help: boolean;
  options: Omit<EmulatorOptions, 'backend'>;
}

const VALUE_FLAGS: Record<string, (o: EmulatorOptions, v: string) => void> = {
  '--host': (o, v) => (o.host = v),
  '--port': (o, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535)
      throw new CliUsageError(`--port must be 0..65535, not ${v}`);
    o.port = n;
  },
  '--user': (o, v) => (o.user = v),
  '--password': (o, v) => (o.password = v),
  '--balance': (o, v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n))
      throw new CliUsageError(`--balance must be a number, not ${v}`);
    o.balance = n;
  },
  '--gateway-ns': (o, v) => (o.gatewayNamespace = v),
  '--legacy-ns': (o, v) => (o.legacyNamespace = v),
  '--customer-path': (o, v) => {
    if (!v.startsWith('/')) throw new CliUsageError('--customer-path must start with /');
    o.customerPath = v;
  },
  '--state': (o, v) => (o.stateFile = v),
  '--max-connections': (o, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1)
      throw new CliUsageError(`--max-connections must be a whole number >= 1, not ${v}`);
    o.maxConnections = n;
  },
  '--max-jobs': (o, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1)
      throw new CliUsageError(`--max-jobs must be a whole number >= 1, not ${v}`);
    o.maxJobs = n;
  },
  '--caption-match': (o, v) => {
    if (v !== 'exact' && v !== 'prefix')
      throw new CliUsageError(`--caption-match must be exact or prefix, not ${v}`);
    o.captionMatch = v;
  },
  '--allow-host': (o, v) => (o.allowedHosts = [...(o.allowedHosts ?? []), v.toLowerCase()]),
};

const SWITCHES: Record<string, (o: EmulatorOptions) => void> = {
  '--no-get': (o) => (o.enableGet = false),
  '--no-post': (o) => (o.enablePost = false),
  '--verbose-faults': (o) => (o.verboseFaults = true),
  '--no-console': (o) => (o.console = false),
};

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const options: CliArgs['options'] = { host: '127.0.0.1', port: 8080 };
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    const eq = raw.indexOf('=');
    const flag = raw.startsWith('--') && eq > 0 ? raw.slice(0, eq) : raw;
    if (flag === '--help' || flag === '-h') {
      help = true;
      continue;
    }
    const sw = SWITCHES[flag];
    if (sw) {
      sw(options);
      continue;
    }
    const setter = VALUE_FLAGS[flag];
    if (!setter) throw new CliUsageError(`unknown option ${raw}`);
    const value = eq > 0 && raw.startsWith('--') ? raw.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new CliUsageError(`${flag} needs a value`);
    setter(options, value);
  }
  return { help, options };
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Runs the CLI; resolves with the running emulator (undefined after --help or a usage error). */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  io: CliIo = processIo,
  handleSignals = true,
): Promise<RunningEmulator | undefined> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    io.err(`smsgw-emulator: ${err.message}\n\n${HELP}`);
    process.exitCode = 2;
    return undefined;
  }
  if (args.help) {
    io.out(HELP);
    return undefined;
  }
  const emu = await startEmulator(args.options);
  io.out(`listening on ${emu.url}\n`);
  if (handleSignals) {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      emu.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
  return emu;
}
