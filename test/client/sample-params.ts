import type { OperationDef } from '../../src/catalogue/types';

const HOUR_AGO = new Date(Date.now() - 3600_000);

/**
 * Plausible parameters for every operation, by parameter name (the catalogue says the type), credentials
 * left out. `customerId`: an existing customer for GetCustomer.
 */
export function sampleParams(op: OperationDef, caption: string, customerId = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of op.params) {
    if (p.credential) continue;
    const n = p.name;
    const v: unknown =
      n === 'Recipient'
        ? p.type.kind === 'list'
          ? ['+4917012345678', '+4917012345679']
          : '+4917012345678'
        : n === 'bRecipient'
          ? Buffer.from('+4917012345678')
          : /^(SMSText|Msg|strMsg)$/.test(n)
            ? 'Hello from the client test €'
            : /^caption$/i.test(n)
              ? caption
              : n === 'Sender'
                ? 'Tester'
                : n === 'SmsTyp'
                  ? p.type.kind === 'enum'
                    ? 'Standard'
                    : p.type.kind === 'primitive' && p.type.name === 'int'
                      ? 1
                      : '1'
                  : n === 'MobileSMSType'
                    ? 'HighQuality'
                    : n === 'Data'
                      ? p.type.kind === 'primitive' && p.type.name === 'base64Binary'
                        ? Buffer.from([0x42, 0x4d, 1, 2, 3])
                        : op.service === 'send'
                          ? '0605040B8423F0'
                          : Buffer.from('BM\x01\x02').toString('base64')
                      : n === 'URL'
                        ? 'http://127.0.0.1:1/logo.bmp'
                        : n === 'Trennzeichen'
                          ? ';'
                          : n === 'JobIdList' || n === 'JobId' || n === 'JobID'
                            ? p.type.kind === 'primitive' && p.type.name === 'int'
                              ? 1
                              : '1'
                            : n === 'CustomerId'
                              ? customerId
                              : n === 'Limit'
                                ? 100
                                : /^(MsgType|binTyp)$/.test(n)
                                  ? 1
                                  : n === 'SMSCSerial'
                                    ? `serial-${caption}`
                                    : n === 'SMSCPassword'
                                      ? 'long-enough-password'
                                      : /date/i.test(n)
                                        ? /^(EndDate)$/.test(n)
                                          ? new Date(Date.now() + 3600_000)
                                          : /^(SendDate|sendDate)$/.test(n)
                                            ? p.type.kind === 'primitive' && p.type.name === 'dateTime'
                                              ? null
                                              : ''
                                            : HOUR_AGO
                                        : p.type.kind === 'primitive' && p.type.name === 'int'
                                          ? 0
                                          : 'x';
    if (!p.optional || ['MobileSMSType', 'SMSCSerial', 'SMSCPassword', 'CompanyName'].includes(n)) out[n] = v;
  }
  return out;
}
