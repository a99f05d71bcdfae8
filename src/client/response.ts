/**
 * How one HTTP response becomes a result or a GatewayError (asmx-wire.md §6.3, §6.5, §10.1):
 * 200 → decoder; 500 with XML → decoder (a SOAP fault); 500 text/plain → FAULT with the text;
 * an HTML page, an empty 400/415 or any other status → HTTP. Bodies are streamed, never buffered whole.
 */
import type { Catalogue } from '../catalogue/catalogue';
import type { OperationDef, ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import { createResponseDecoder, type ResponseDecoder } from '../soap/decode';
import type { Transport } from '../soap/request';
import type { BodyConsumer, ResponseHead } from '../transport/http';
import type { WarningSink } from '../soap/warnings';
import { cleanCause, cleanValue } from './secrets';

const EXCERPT_BYTES = 2048;
const EXCERPT_CHARS = 300;
const PLAIN_LIMIT = 64 * 1024;

/** What reading one answer needs: who asked (for errors), how to mask secrets, how to decode the body. */
export interface ResponseContext {
  readonly service: ServiceName | undefined;
  readonly operation: string;
  readonly clean: (s: string) => string;
  /** A decoder for a body that holds the answer or a SOAP fault (typed: the catalogue's; invoke(): generic). */
  decoder(): ResponseDecoder;
}

/** The typed path's context: the catalogue-directed streaming decoder of src/soap. */
export class CatalogueResponse implements ResponseContext {
  constructor(
    private readonly op: OperationDef,
    private readonly transport: Transport,
    private readonly zoneless: 'utc' | 'local',
    readonly clean: (s: string) => string,
    /** Told of values kept as raw text and unknown elements skipped (undefined: nobody listens). */
    private readonly warn: WarningSink | undefined,
    private readonly catalogue: Catalogue,
  ) {}

  get service(): ServiceName {
    return this.op.service;
  }

  get operation(): string {
    return this.op.name;
  }

  decoder(): ResponseDecoder {
    return createResponseDecoder(this.op, {
      transport: this.transport,
      zoneless: this.zoneless,
      warn: this.warn,
      catalogue: this.catalogue,
    });
  }
}

/** Keeps the first bytes of a body for error messages without copying the rest. */
class Excerpt {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = EXCERPT_BYTES) {}
  add(chunk: Buffer): void {
    if (this.size >= this.limit) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).subarray(0, this.limit).toString('utf8');
  }
}

function short(text: string, clean: (s: string) => string): string | undefined {
  const s = clean(text).replace(/\s+/g, ' ').trim();
  if (!s) return undefined;
  return s.length > EXCERPT_CHARS ? s.slice(0, EXCERPT_CHARS) + '…' : s;
}

const htmlDecode = (s: string): string =>
  s.replace(
    /&(lt|gt|amp|quot|#39|apos);/g,
    (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" })[e] as string,
  );

const isXml = (mediaType: string): boolean =>
  mediaType === 'text/xml' || mediaType === 'application/soap+xml' || mediaType === 'application/xml';

/** Re-issues an error from the decoder with the response's details and every secret removed. */
function enrich(err: unknown, ctx: ResponseContext, status: number, excerpt: Excerpt): GatewayError {
  const base = {
    service: ctx.service,
    operation: ctx.operation,
    httpStatus: status,
    body: short(excerpt.text(), ctx.clean),
  };
  if (err instanceof GatewayError) {
    const prefix = err.operation ? `${err.operation}: ` : '';
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    // A fault means the service refused the request; an unreadable 200 may hide a job that was created.
    const ambiguous = err.code === 'PARSE' && status === 200;
    return new GatewayError(err.code, ctx.clean(message), {
      ...base,
      status: err.status === undefined ? undefined : ctx.clean(err.status),
      ambiguous,
      detail: err.detail === undefined ? undefined : cleanValue(err.detail, ctx.clean),
      cause: err.cause === undefined ? undefined : cleanCause(err.cause, ctx.clean),
    });
  }
  const text = err instanceof Error ? err.message : String(err);
  return new GatewayError('PARSE', `unreadable response: ${ctx.clean(text)}`, {
    ...base,
    ambiguous: status === 200,
    cause: cleanCause(err, ctx.clean),
  });
}

function decoding(ctx: ResponseContext, status: number): BodyConsumer<unknown> {
  const decoder = ctx.decoder();
  const excerpt = new Excerpt();
  return {
    write(chunk) {
      excerpt.add(chunk);
      try {
        decoder.write(chunk);
      } catch (e) {
        throw enrich(e, ctx, status, excerpt);
      }
    },
    end() {
      let result: unknown;
      try {
        result = decoder.end();
      } catch (e) {
        throw enrich(e, ctx, status, excerpt);
      }
      if (status !== 200) {
        throw new GatewayError('HTTP', `HTTP ${status} without a SOAP fault`, {
          service: ctx.service,
          operation: ctx.operation,
          httpStatus: status,
          body: short(excerpt.text(), ctx.clean),
        });
      }
      return result;
    },
  };
}

/** ASMX's GET/POST error: text/plain, HTML-encoded, verbose form starting with the exception type. */
function plainFault(ctx: ResponseContext, status: number): BodyConsumer<never> {
  const excerpt = new Excerpt(PLAIN_LIMIT);
  return {
    write: (chunk) => excerpt.add(chunk),
    end() {
      const text = ctx.clean(htmlDecode(excerpt.text())).trim();
      const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
      const typed = /^([\w.]+(?:Exception|Error)):\s*(.*)$/.exec(firstLine);
      const message = (typed ? typed[2] : firstLine) || 'empty error text';
      throw new GatewayError('FAULT', message, {
        service: ctx.service,
        operation: ctx.operation,
        status: typed ? typed[1] : undefined,
        httpStatus: status,
        body: short(text, (s) => s),
      });
    },
  };
}

function httpError(ctx: ResponseContext, head: ResponseHead, why: string): BodyConsumer<never> {
  const excerpt = new Excerpt();
  return {
    write: (chunk) => excerpt.add(chunk),
    end() {
      const body = short(excerpt.text(), ctx.clean);
      throw new GatewayError('HTTP', `${why}${body ? '' : ' (empty body)'}`, {
        service: ctx.service,
        operation: ctx.operation,
        httpStatus: head.status,
        body,
        // A 200 we cannot read, a bad gateway or a gateway timeout say nothing about whether the service ran.
        ambiguous: head.status === 200 || head.status === 502 || head.status === 504,
      });
    },
  };
}

export function consumerFor(ctx: ResponseContext, head: ResponseHead): BodyConsumer<unknown> {
  const { status, mediaType } = head;
  if (mediaType.includes('html')) {
    return httpError(ctx, head, `HTTP ${status}: an HTML page instead of a service answer`);
  }
  if (status === 200) return decoding(ctx, status);
  if (status === 500 && isXml(mediaType)) return decoding(ctx, status);
  if (status === 500 && mediaType === 'text/plain') return plainFault(ctx, status);
  return httpError(ctx, head, `HTTP ${status}`);
}
