import type { OperationDef } from '../../catalogue/types';

const enc = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/** The Documentation protocol's page for `GET <P>` (a short stand-in for the ASMX service help page). */
export function helpPage(serviceName: string, path: string, ops: readonly OperationDef[]): string {
  const items = ops
    .map(
      (op) =>
        `<li><a href="${enc(path)}?op=${enc(op.name)}">${enc(op.name)}</a><br />${enc(op.doc)} <i>(${op.style === 'rpc' ? 'RPC/encoded' : 'document/literal'})</i></li>`,
    )
    .join('\r\n');
  return (
    `<html>\r\n<head><title>${enc(serviceName)} Web Service</title></head>\r\n<body>\r\n` +
    `<h1>${enc(serviceName)}</h1>\r\n<p>SMS gateway emulator. The following operations are supported. ` +
    `For a formal definition, please review the <a href="${enc(path)}?WSDL">Service Description</a>.</p>\r\n` +
    `<ul>\r\n${items}\r\n</ul>\r\n</body>\r\n</html>\r\n`
  );
}
