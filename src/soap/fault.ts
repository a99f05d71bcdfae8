import type { ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';

/**
 * The error of a SOAP fault, for the typed decoder and the generic one alike: code FAULT, the fault string
 * (1.1 `faultstring`, 1.2 `Reason/Text`) as message, the local part of the fault code (1.1 `faultcode`, 1.2
 * `Code/Value`) as status. Match on the status (`Client`, `Server`, `Sender`, `Receiver`), never on the text:
 * servers word it differently (asmx-wire.md §6.4).
 */
export function faultError(
  faultString: string | undefined,
  faultCode: string | undefined,
  where: { service?: ServiceName | undefined; operation?: string | undefined; detail?: unknown },
): GatewayError {
  const code = faultCode === undefined ? undefined : faultCode.slice(faultCode.indexOf(':') + 1);
  return new GatewayError('FAULT', faultString || 'SOAP fault', {
    service: where.service,
    operation: where.operation,
    status: code,
    detail: where.detail,
  });
}
