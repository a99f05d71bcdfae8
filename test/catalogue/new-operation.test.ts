/**
 * "Adding an operation is one catalogue entry": a copy of the catalogue with one made-up operation (and the
 * emulator's business logic for it) reaches every place that serves operations, with no other code changed:
 * the typed client over the four transports, call(), invoke(), the emulator's WSDL and help page, the node
 * menus and the editor's lists, and the generated outputs. CONTRIBUTING.md walks through the same change.
 */
import assert from 'node:assert/strict';
import { CATALOGUE, createCatalogue, t, type OperationDef } from '../../src/catalogue';
import { GatewayClient, type Transport } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { dateMs, type AccountHandler } from '../../src/emulator/state/env';
import { LOGIC } from '../../src/emulator/state/operations';
import { GatewayError } from '../../src/errors';
import { NODE_OPERATIONS, editorCatalogue, nodeOperations } from '../../src/nodes/common/operations';
import { methodsSection } from '../../scripts/gen-api-doc';
import { generateClientTypesSource } from '../../scripts/gen-client-types';
import { helpList, menuNodes } from '../../scripts/gen-doc-lists';
import { goldenRequests } from '../../scripts/gen-golden-requests';

const auth = [
  { name: 'User', type: t.string, credential: 'user' as const },
  { name: 'Password', type: t.string, credential: 'password' as const },
];

/** The made-up operation, written as a contributor writes an entry of src/catalogue/operations.ts. */
const QUERY_JOB_COUNT: OperationDef = {
  service: 'information',
  name: 'QueryJobCount',
  style: 'document',
  params: [...auth, { name: 'StartDate', type: t.dateTime }, { name: 'EndDate', type: t.dateTime }],
  result: { type: t.complex('SOAPResponseOfInt32'), bare: 'SOAPResponseOfInt32' },
  doc: 'Number of jobs submitted in a period.',
  node: 'smsgw-query-jobs',
};

// (Built so that it still holds once the package's catalogue has an operation of that name.)
const others = CATALOGUE.operations.filter(
  (op) => op.service !== 'information' || op.name !== 'QueryJobCount',
);
const catalogue = createCatalogue({
  operations: [...others, QUERY_JOB_COUNT],
  enums: CATALOGUE.enums,
  complexTypes: {
    ...CATALOGUE.complexTypes,
    // The new value type, as src/catalogue/schema.ts writes an envelope.
    SOAPResponseOfInt32: {
      name: 'SOAPResponseOfInt32',
      fields: [
        { name: 'StatusCode', type: t.enum('LoginStatus') },
        { name: 'Value', type: t.int },
      ],
    },
  },
});

/** Its business logic, as a contributor exports it from src/emulator/state/ops-info.ts. */
const queryJobCount: AccountHandler = (_env, state, p) => {
  const from = dateMs(p, 'StartDate') ?? -Infinity;
  const to = dateMs(p, 'EndDate') ?? Infinity;
  return state.jobs.filter((j) => j.createdAt >= from && j.createdAt <= to).length;
};
const logic = { ...LOGIC, information: { ...LOGIC.information, queryJobCount } };

const USER = 'demo';
const PASSWORD = 'demo-password';
const TRANSPORTS: Transport[] = ['soap11', 'soap12', 'get', 'post'];
type Methods = Record<string, ((params?: unknown) => Promise<unknown>) | undefined>;

describe('catalogue: a made-up operation added to a copy of the catalogue reaches everything', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  const period = { StartDate: new Date(Date.now() - 3_600_000), EndDate: new Date(Date.now() + 3_600_000) };

  before(async () => {
    emu = await startEmulator({ user: USER, password: PASSWORD, catalogue, logic, console: false });
    const seeder = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD });
    try {
      for (const text of ['one', 'two'])
        await seeder.send.sendSms({
          Caption: 'count',
          Sender: 'Test',
          Recipient: ['+4917012345678'],
          SMSText: text,
          SmsTyp: 'Standard',
          SendDate: null,
        });
    } finally {
      await seeder.close();
    }
  });
  after(() => emu.close());

  it('leaves the package catalogue as it is', () => {
    assert.equal(catalogue.find('information', 'QueryJobCount'), QUERY_JOB_COUNT);
    assert.equal(catalogue.operations.length, others.length + 1);
    assert.ok(!CATALOGUE.operations.includes(QUERY_JOB_COUNT));
    assert.notEqual(CATALOGUE.find('information', 'QueryJobCount'), QUERY_JOB_COUNT);
    assert.notEqual(catalogue.complexTypes, CATALOGUE.complexTypes);
    assert.deepEqual(nodeOperations(), NODE_OPERATIONS);
  });

  for (const transport of TRANSPORTS) {
    it(`typed client over ${transport}: a method, call() and a refused login`, async () => {
      const client = new GatewayClient({
        baseUrl: emu.url,
        user: USER,
        password: PASSWORD,
        transport,
        catalogue,
      });
      const stranger = new GatewayClient({
        baseUrl: emu.url,
        user: USER,
        password: 'wrong',
        transport,
        catalogue,
      });
      try {
        const method = (client.information as unknown as Methods).queryJobCount;
        assert.equal(typeof method, 'function');
        assert.equal(await method!(period), 2);
        const raw = await client.call('information', 'QueryJobCount' as never, period as never);
        assert.deepEqual(raw, { StatusCode: 'Ok', Value: 2 });
        const err = await (stranger.information as unknown as Methods).queryJobCount!(period).catch(
          (e: unknown) => e,
        );
        assert.ok(err instanceof GatewayError && err.code === 'AUTH', String(err));
        assert.equal(err.status, 'InvalidUser');
        await assert.rejects(
          method!({ StartDate: 'not a date' }),
          (e: unknown) => e instanceof GatewayError && e.code === 'VALIDATION',
        );
      } finally {
        await Promise.all([client.close(), stranger.close()]);
      }
    });

    it(`invoke() over ${transport} knows it from the catalogue`, async () => {
      const client = new GatewayClient({
        baseUrl: emu.url,
        user: USER,
        password: PASSWORD,
        transport,
        catalogue,
      });
      try {
        assert.equal(client.knownOperation('information', 'QueryJobCount'), QUERY_JOB_COUNT);
        const answer = await client.invoke('information', 'QueryJobCount', period, { typed: true });
        assert.deepEqual(answer, { StatusCode: 'Ok', Value: 2 });
      } finally {
        await client.close();
      }
    });
  }

  it("the emulator's WSDL declares it; the typed client reads its namespace there", async () => {
    const wsdl = await (await fetch(`${emu.url}/gateway/Information.asmx?WSDL`)).text();
    assert.match(
      wsdl,
      /<s:element name="QueryJobCount">\s*<s:complexType>\s*<s:sequence>\s*<s:element minOccurs="0" maxOccurs="1" name="User" type="s:string" \/>\s*<s:element minOccurs="0" maxOccurs="1" name="Password" type="s:string" \/>\s*<s:element minOccurs="1" maxOccurs="1" name="StartDate" type="s:dateTime" \/>\s*<s:element minOccurs="1" maxOccurs="1" name="EndDate" type="s:dateTime" \/>/,
    );
    assert.match(wsdl, /name="QueryJobCountResult" type="tns:SOAPResponseOfInt32" \/>/);
    assert.match(
      wsdl,
      /<s:complexType name="SOAPResponseOfInt32">\s*<s:sequence>\s*<s:element minOccurs="1" maxOccurs="1" name="StatusCode" type="tns:LoginStatus" \/>\s*<s:element minOccurs="1" maxOccurs="1" name="Value" type="s:int" \/>/,
    );
    assert.match(
      wsdl,
      /<s:element name="SOAPResponseOfInt32" nillable="true" type="tns:SOAPResponseOfInt32" \/>/,
    );
    for (const binding of [
      'InformationSoap',
      'InformationSoap12',
      'InformationHttpGet',
      'InformationHttpPost',
    ])
      assert.match(
        wsdl,
        new RegExp(`<wsdl:binding name="${binding}"[\\s\\S]*?<wsdl:operation name="QueryJobCount">`),
      );
  });

  it("the emulator's help page lists it and shows its requests", async () => {
    const help = await (await fetch(`${emu.url}/gateway/Information.asmx`)).text();
    assert.ok(
      help.includes('?op=QueryJobCount">QueryJobCount</a><br />Number of jobs submitted in a period.'),
      help,
    );
    const page = await (await fetch(`${emu.url}/gateway/Information.asmx?op=QueryJobCount`)).text();
    assert.ok(page.includes('&lt;StartDate&gt;dateTime&lt;/StartDate&gt;'), page);
    assert.ok(
      page.includes(
        'QueryJobCount?User=string&amp;Password=string&amp;StartDate=dateTime&amp;EndDate=dateTime',
      ),
      page,
    );
  });

  it('the node menu that the entry names offers it, with its parameters in the editor', () => {
    assert.ok(nodeOperations(catalogue)['smsgw-query-jobs']!.includes('information/QueryJobCount'));
    assert.ok(nodeOperations(catalogue)['smsgw-call']!.includes('information/QueryJobCount'));
    const entry = editorCatalogue(catalogue)['smsgw-query-jobs']!.find(
      (o) => o.key === 'information/QueryJobCount',
    );
    assert.deepEqual(entry, {
      key: 'information/QueryJobCount',
      doc: 'Number of jobs submitted in a period.',
      params: [
        { name: 'StartDate', type: 'dateTime', optional: false },
        { name: 'EndDate', type: 'dateTime', optional: false },
      ],
    });
  });

  it('the generated outputs include it (types, API doc, help and doc lists, golden requests)', () => {
    const types = generateClientTypesSource(catalogue);
    assert.ok(
      types.includes(
        'QueryJobCount: { params: InformationQueryJobCountParams; result: SOAPResponseOfInt32; value: number };',
      ),
    );
    assert.match(
      types,
      /queryJobCount\(params: InformationQueryJobCountParams, options\?: CallOptions\): Promise<number>;/,
    );
    assert.match(
      methodsSection(catalogue),
      /\| `queryJobCount` \| QueryJobCount \| `StartDate`: dateTime, `EndDate`: dateTime \| `int` \|/,
    );
    assert.ok(menuNodes(catalogue)['smsgw-query-jobs']!.includes('QueryJobCount'));
    assert.match(
      helpList('de', nodeOperations(catalogue)['smsgw-query-jobs']!),
      /QueryReceivedSMSByJobCaption, QueryJobCount und die älteren/,
    );
    const goldens = goldenRequests(catalogue);
    for (const transport of TRANSPORTS) assert.ok(goldens.has(`information.QueryJobCount.${transport}.txt`));
    assert.match(
      goldens.get('information.QueryJobCount.get.txt')!,
      /^GET \/gateway\/Information\.asmx\/QueryJobCount\?User=demo-user&Password=p%26ss%3Cw%3Erd%20%221%22&StartDate=2026-11-22T10%3A00%3A02Z&EndDate=2026-11-22T10%3A00%3A03Z\n/,
    );
  });
});
