import type { OperationDef } from '../../catalogue/types';
import type { ParamValues, WireTransport } from '../contract';
import {
  errorMessage,
  injectFault,
  invokeNow,
  isThenable,
  reply,
  type Exchange,
  type ServiceEntry,
  type WireContext,
} from './exchange';
import { FormError, aspNetErrorPage, formErrorText } from './faults';
import { collectForm, readFormParams } from './form-params';
import { writeBareResponse } from './responses';
import { mediaTypeOf } from './soap-request';

function unknownMethod(entry: ServiceEntry, methodName: string): FormError {
  const other = entry.ops.find((o) => o.name.toLowerCase() === methodName.toLowerCase());
  if (!other)
    return new FormError(
      'System.InvalidOperationException',
      `${methodName} Web Service method name is not valid.`,
    );
  return new FormError(
    'System.ArgumentException',
    `Invalid method name '${methodName}',  method names are case sensitive.   The method name '${other.name}' with the same name but different casing was found.\r\nParameter name: methodName`,
  );
}

function readParams(
  ex: Exchange,
  entry: ServiceEntry,
  op: OperationDef,
  isGet: boolean,
  body: Buffer,
  query: string,
): ParamValues {
  if (isGet) return readFormParams(op, collectForm(query), entry.catalogue);
  const contentType = ex.req.headers['content-type'];
  if (mediaTypeOf(contentType).type !== 'application/x-www-form-urlencoded') {
    throw new FormError(
      'System.InvalidOperationException',
      `Request format is invalid: ${contentType ?? ''}.`,
    );
  }
  return readFormParams(op, collectForm(body.toString('utf8')), entry.catalogue);
}

/**
 * `<P>/<Op>` that no protocol takes: GET or POST switched off, or another verb (HEAD, PUT, …), whatever is
 * enabled. ASMX asks its protocol factories in turn; the last, Documentation, declines any path info, and the
 * handler factory then throws InvalidOperationException: ASP.NET's error page, 500.
 */
export function unrecognizedUrl(ctx: WireContext, ex: Exchange, methodName: string): void {
  const msg = `Request format is unrecognized for URL unexpectedly ending in '/${methodName}'.`;
  reply(ctx, ex, 500, 'text/html; charset=utf-8', aspNetErrorPage(msg, ex.req.url ?? ''), msg);
}

/** `GET <P>/<Op>?…` and `POST <P>/<Op>` (asmx-wire §6.5, §7). */
export async function handleForm(
  ctx: WireContext,
  ex: Exchange,
  entry: ServiceEntry,
  methodName: string,
  body: Buffer,
  query: string,
): Promise<void> {
  const { cfg } = ctx;
  const isGet = ex.req.method === 'GET';
  const transport: WireTransport = isGet ? 'get' : 'post';
  ex.transport = transport;
  ex.request = isGet ? `GET ${ex.req.url ?? ''}` : `POST ${ex.req.url ?? ''}\n`;
  if (!isGet) ex.body = body;
  ex.operation = entry.ops.find((o) => o.name === methodName);
  // A path info of "/" alone is too short for the HTTP GET/POST protocols (PathInfo.Length < 2).
  const enabled = methodName !== '' && (isGet ? cfg.enableGet : cfg.enablePost);
  if (!enabled) {
    unrecognizedUrl(ctx, ex, methodName);
    return;
  }
  const go = injectFault(ctx, ex);
  if (go !== true && !(await go)) return;
  const sendError = (err: FormError): void =>
    reply(ctx, ex, 500, 'text/plain; charset=utf-8', formErrorText(err, cfg.verboseFaults), err.message);
  const op = ex.operation;
  if (!op) {
    sendError(unknownMethod(entry, methodName));
    return;
  }
  let xml: string;
  try {
    const params = readParams(ex, entry, op, isGet, body, query);
    let result: unknown;
    try {
      result = invokeNow(ctx, ex, op, params, transport);
      if (isThenable(result)) result = await result;
    } catch (err) {
      // GET/POST shows the method's own exception, without the SOAP "unable to process" prefix.
      const type = err instanceof Error && err.name !== 'Error' ? `System.${err.name}` : 'System.Exception';
      throw new FormError(type, errorMessage(err));
    }
    xml = writeBareResponse(op, entry.ns, result, entry.catalogue);
  } catch (err) {
    sendError(err instanceof FormError ? err : new FormError('System.Exception', errorMessage(err)));
    return;
  }
  reply(ctx, ex, 200, 'text/xml; charset=utf-8', xml);
}
