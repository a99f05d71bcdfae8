import { WireFault, unableToProcess, writeSoapFault } from './faults';
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
import { soapContentType, type SoapVersion } from './ns';
import { writeSoapResponse } from './responses';
import { readSoapRequest } from './soap-request';

/** `POST <P>`: SOAP 1.1 or 1.2. */
export async function handleSoap(
  ctx: WireContext,
  ex: Exchange,
  entry: ServiceEntry,
  body: Buffer,
): Promise<void> {
  ex.transport = 'soap11';
  ex.body = body;
  const outcome = readSoapRequest(entry, ex.req.headers, body, ctx.cfg.limits);
  ex.transport = outcome.version === '1.1' ? 'soap11' : 'soap12';
  if (outcome.kind !== 'status') ex.operation = outcome.op;
  const go = injectFault(ctx, ex);
  if (go !== true && !(await go)) return;
  if (outcome.kind === 'status') {
    // ASMX sets the helper's content type, then writes no fault (it writes one only with status 500).
    reply(ctx, ex, outcome.status, soapContentType(outcome.version), '');
    return;
  }
  if (outcome.kind === 'fault') {
    sendFault(ctx, ex, outcome.version, outcome.fault);
    return;
  }
  const contentType = soapContentType(outcome.version);
  let xml: string;
  try {
    let result = invokeNow(
      ctx,
      ex,
      outcome.op,
      outcome.params,
      outcome.version === '1.1' ? 'soap11' : 'soap12',
    );
    if (isThenable(result)) result = await result;
    xml = writeSoapResponse(outcome.op, entry.ns, outcome.version, result, entry.catalogue);
  } catch (err) {
    sendFault(ctx, ex, outcome.version, err instanceof WireFault ? err : unableToProcess(errorMessage(err)));
    return;
  }
  reply(ctx, ex, 200, contentType, xml);
}

/** A module function, not a closure made for every request. */
function sendFault(ctx: WireContext, ex: Exchange, version: SoapVersion, fault: WireFault): void {
  reply(
    ctx,
    ex,
    500,
    soapContentType(version),
    writeSoapFault(fault, version, ctx.cfg.verboseFaults),
    fault.message,
  );
}
