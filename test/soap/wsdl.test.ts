import assert from 'node:assert/strict';
import { GatewayError } from '../../src/errors';
import { readTargetNamespace } from '../../src/soap/wsdl';
import { thrown } from './helpers';

describe('soap/wsdl readTargetNamespace', () => {
  it('reads targetNamespace from the definitions root, whatever its prefix', () => {
    const wsdl = `<?xml version="1.0" encoding="utf-8"?>\r\n<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:x:gw/"><wsdl:types /></wsdl:definitions>`;
    assert.equal(readTargetNamespace(wsdl), 'urn:x:gw/');
    assert.equal(readTargetNamespace('<definitions targetNamespace="a&amp;b"><oops'), 'a&b');
  });
  it('throws PARSE for a non-WSDL document, a missing namespace or garbage', () => {
    for (const text of ['<html><body>503</body></html>', '<definitions />', 'not xml', '']) {
      const e = thrown(() => readTargetNamespace(text));
      assert.ok(e instanceof GatewayError && e.code === 'PARSE', `${text}: ${String(e)}`);
    }
  });
});
