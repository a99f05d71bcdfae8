import assert from 'node:assert/strict';
import { findOperation } from '../../src/catalogue';
import type { OperationDef, ServiceName } from '../../src/catalogue/types';
import { lookupJob, type LookupTarget, type RawCall } from '../../src/reliability/job-lookup';

const op = (service: ServiceName, name: string): OperationDef => findOperation(service, name)!;

const REF = 'k3x9q2mz7a';
const CAPTION = `order 4711 #${REF}`;

/** A fake gateway: answers per operation, records every call. */
function gateway(answers: Record<string, unknown>): {
  call: RawCall;
  calls: Array<[string, Record<string, unknown>]>;
} {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const call: RawCall = (_service, operation, params) => {
    calls.push([operation, params]);
    return Promise.resolve(answers[operation]);
  };
  return { call, calls };
}

const target = (o: OperationDef, caption = CAPTION): LookupTarget => ({
  op: o,
  caption,
  reference: REF,
  since: Date.now() - 1000,
});

const jobInfo = (Id: number, Caption: string): unknown => ({
  StatusCode: 'Ok',
  Value: { Status: 'Ok', Job: { Id, Caption, Status: 'Versendet' }, Report: [], Log: [], Received: [] },
});

describe('reliability: the job lookup never depends on how the gateway matches captions', () => {
  it('asks QueryJobInfoByJobCaption for the exact caption as sent, and takes the job whose caption it is', async () => {
    const g = gateway({ QueryJobInfoByJobCaption: jobInfo(100001, CAPTION) });
    const found = (await lookupJob(g.call, target(op('send', 'SendSMS')))) as Record<string, unknown>;
    assert.equal(found.JobId, 100001);
    assert.equal(found.recovered, true);
    assert.deepEqual(g.calls, [['QueryJobInfoByJobCaption', { Caption: CAPTION }]]);
  });

  it('a prefix-matching gateway answering with a newer job that starts with our caption: ours is still found (QueryJobs)', async () => {
    const g = gateway({
      QueryJobInfoByJobCaption: jobInfo(100002, `${CAPTION}-2`),
      QueryJobs: {
        StatusCode: 'Ok',
        Value: [
          { Id: 100001, Caption: CAPTION, Status: 'Versendet' },
          { Id: 100002, Caption: `${CAPTION}-2`, Status: 'Versendet' },
        ],
      },
    });
    const found = (await lookupJob(g.call, target(op('send', 'SendSMS')))) as Record<string, unknown>;
    assert.equal(found.JobId, 100001, 'not "not found" (a second send) and not the other job');
    assert.deepEqual(
      g.calls.map((c) => c[0]),
      ['QueryJobInfoByJobCaption', 'QueryJobs'],
    );
  });

  it('that gateway without our job behind it: not found', async () => {
    const g = gateway({
      QueryJobInfoByJobCaption: jobInfo(100002, `${CAPTION}-2`),
      QueryJobs: { StatusCode: 'Ok', Value: [{ Id: 100002, Caption: `${CAPTION}-2`, Status: 'Versendet' }] },
    });
    assert.equal(await lookupJob(g.call, target(op('send', 'SendSMS'))), undefined);
  });

  it('QueryJobs (SendMobileOrFixlineSMS) takes only jobs whose caption is ours, not every caption holding the reference', async () => {
    const g = gateway({
      QueryJobs: {
        StatusCode: 'Ok',
        Value: [
          { Id: 100003, Caption: CAPTION.toUpperCase(), Status: 'Versendet' },
          { Id: 100004, Caption: `${CAPTION} and more`, Status: 'Versendet' },
          { Id: 100005, Caption: `x ${CAPTION}`, Status: 'Versendet' },
        ],
      },
    });
    const found = await lookupJob(g.call, target(op('send', 'SendMobileOrFixlineSMS')));
    assert.deepEqual(
      (found as Array<Record<string, unknown>>).map((j) => j.JobId),
      [100003],
      'a re-cased caption is ours (a gateway may clean), a longer one is not',
    );
  });

  it('GetJobs1 (older service) takes only the record whose caption is ours (as the gateway cleans it)', async () => {
    const sent = `line; one #${REF}`;
    const g = gateway({
      GetJobs1: {
        ok: true,
        records: [
          { jobId: '7', caption: `line  one #${REF} extra` },
          { jobId: '8', caption: `line  one #${REF}` },
        ],
      },
    });
    const found = (await lookupJob(g.call, target(op('legacy', 'SendText'), sent))) as Record<
      string,
      unknown
    >;
    assert.equal(found.id, '8');
  });
});
