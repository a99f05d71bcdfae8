/**
 * What the docs say about the package holds for the package: the config dialog's tabs as
 * docs/nodes.md lists them, every field of a delivery outcome wherever its payload is listed, and no link or path
 * that leads outside the repository. (README's debug sidebar wording is held to the editor by
 * test/e2e/editor.e2e.ts, its install warning to npm by test/e2e/git-install.e2e.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DeliveryTracker, type DeliveryOutcome } from '../../src/nodes/send/delivery-tracker';
import { ReportStatuses } from '../../src/nodes/polling/report-status';

const root = path.join(__dirname, '..', '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The config dialog's tab labels (en-US), in the order the dialog shows them. */
function dialogTabs(): string[] {
  const html = read('nodes/smsgw-config.html');
  const labels = (
    JSON.parse(read('nodes/locales/en-US/smsgw-config.json')) as {
      'smsgw-config': { tabs: Record<string, string> };
    }
  )['smsgw-config'].tabs;
  return [...html.matchAll(/tabs\.addTab\(\{ id: 'smsgw-config-tab-(\w+)'/g)].map((m) => labels[m[1]!]!);
}

const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs: what they say about the package holds', () => {
  it('docs/nodes.md lists the config dialog’s tabs as the dialog has them', () => {
    const text = read('docs/nodes.md');
    const at = text.indexOf('The dialog has ');
    assert.ok(at >= 0, 'docs/nodes.md no longer describes the config dialog');
    // the sentence, then its list of tabs up to the next blank line
    const section = text.slice(at, text.indexOf('\n\n', text.indexOf('\n- ', at)));
    const listed = [...section.matchAll(/^- \*\*([^*]+)\*\*:/gm)].map((m) => m[1]);
    const tabs = dialogTabs();
    assert.ok(tabs.length >= 4, tabs.join());
    assert.deepEqual(listed, tabs);
    const counted = /The dialog has (\w+) tabs/.exec(section);
    if (counted) assert.equal(counted[1], NUMBERS[tabs.length], section.split('\n')[0]);
  });

  it('every listing of a delivery outcome’s payload names each of its fields', async () => {
    const tracker = new DeliveryTracker({
      userDir: undefined,
      id: 'docs',
      query: () => Promise.resolve([]),
      intervalMs: 10,
      lookbackMs: 60_000,
      statuses: ReportStatuses.from(undefined, undefined),
    });
    const outcome = await new Promise<DeliveryOutcome>((resolve) => {
      tracker.subscribe('owner', resolve);
      tracker.track({ jobId: 7, owner: 'owner', recipients: ['+4917012345678'], timeoutMs: 20 });
    });
    await tracker.close();
    const fields = Object.keys(outcome)
      .filter((k) => k !== 'context')
      .sort();
    const places = [
      ...docs,
      'nodes/locales/en-US/smsgw-send-sms.html',
      'nodes/locales/de/smsgw-send-sms.html',
    ];
    let listings = 0;
    for (const file of places) {
      for (const m of read(file).matchAll(/\{ JobId, outcome[^}]*\}/g)) {
        listings++;
        const named = m[0]
          .slice(1, -1)
          .split(',')
          .map((s) => s.trim().split(/[:\s]/)[0]!)
          .sort();
        assert.deepEqual(named, fields, `${file}: ${m[0]}`);
      }
    }
    assert.ok(listings >= 3, `${listings} listings found`);
  });

  it('links and paths in the docs stay inside the repository', () => {
    const problems: string[] = [];
    for (const file of docs) {
      const text = read(file);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue; // an anchor, http(s), mailto
        const resolved = path.resolve(path.dirname(path.join(root, file)), target);
        if (!resolved.startsWith(root + path.sep))
          problems.push(`${file}: ${m[1]} leads outside the repository`);
        else if (!existsSync(resolved)) problems.push(`${file}: ${m[1]} does not exist`);
      }
      // an absolute path of the machine the docs were written on
      for (const m of text.matchAll(/(?<![\w.:/])\/(?:work|home|Users|root|mnt|srv)\/[^\s`)'"]+/g))
        problems.push(`${file}: ${m[0]} is a path outside the repository`);
    }
    assert.deepEqual(problems, []);
  });
});
