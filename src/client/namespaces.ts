import { GatewayError } from '../errors';

/**
 * Discovers a service's namespace once per path: concurrent first calls share one WSDL request, a failed
 * discovery is forgotten so that the next call tries again.
 */
export class NamespaceCache {
  private readonly known = new Map<string, string>();
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly fetchNamespace: (path: string, signal: AbortSignal) => Promise<string>,
    private readonly timeoutMs: number,
  ) {}

  /** Sets a namespace for a path without asking the service. */
  set(path: string, namespace: string): void {
    this.known.set(path, namespace);
  }

  /** The namespace when already known (the fast path: no promise, no signal). */
  peek(path: string): string | undefined {
    return this.known.get(path);
  }

  get(path: string, signal: AbortSignal): Promise<string> {
    const ns = this.known.get(path);
    if (ns !== undefined) return Promise.resolve(ns);
    let p = this.pending.get(path);
    if (!p) {
      // The shared discovery must not die with the first caller's signal: it gets its own time limit.
      p = this.fetchNamespace(
        path,
        this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : new AbortController().signal,
      ).then(
        (found) => {
          this.known.set(path, found);
          this.pending.delete(path);
          return found;
        },
        (err: unknown) => {
          this.pending.delete(path);
          throw err;
        },
      );
      this.pending.set(path, p);
    }
    return raceSignal(p, signal);
  }
}

function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function abortReason(signal: AbortSignal): GatewayError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return new GatewayError(
    'TIMEOUT',
    timedOut ? 'no namespace from the WSDL in time' : 'aborted by the caller',
    {
      ambiguous: false,
      cause: reason,
    },
  );
}
