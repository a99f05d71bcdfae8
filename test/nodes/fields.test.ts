/**
 * The field declarations (src/nodes/fields) against what they describe: every field of every dialog is declared
 * (and nothing else), every label has its words in en-US and de, the lists equal the catalogue's, and the rules
 * give the verdicts and words a user must get for the values reported wrong before (each listed once here with
 * its words, so a rule that drifts fails by name).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { getCountries } from 'libphonenumber-js/min';
import { DEFAULT_PATHS } from '../../src/catalogue';
import { NODE_OPERATIONS } from '../../src/nodes/common/operations';
import { OVERRIDES } from '../../src/nodes/common/override-table';
import { checkSettings } from '../../src/nodes/common/fields';
import { FIELDS } from '../../src/nodes/fields';
import { COUNTRY_CODES, TIMER_MAX_MS, rangeOf, type Field } from '../../src/nodes/fields/rule';
import { baseValues, EXAMPLES } from '../helpers/field-cases';
import { editorDefinition, NODE_TYPES } from './editor-definitions';

const root = path.join(__dirname, '..', '..');
type Catalogue = Record<string, unknown>;
const catalogue = (lang: string, set: string): Catalogue =>
  JSON.parse(readFileSync(path.join(root, 'nodes', 'locales', lang, `${set}.json`), 'utf8')) as Catalogue;
const lookup = (cat: Catalogue, key: string): unknown =>
  key
    .split('.')
    .reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Catalogue)[k] : undefined), cat);

/** The words of one node's settings as the runtime refuses them. */
const refused = (nodeType: string, values: Record<string, unknown>): string[] =>
  checkSettings(nodeType, { ...baseValues(nodeType), ...values }).reasons;

describe('nodes: the field declarations', () => {
  it('every node type of the package has a table, and nothing else has one', () => {
    assert.deepEqual(Object.keys(FIELDS).sort(), [...NODE_TYPES].sort());
  });

  for (const type of NODE_TYPES) {
    it(`${type}: the dialog's defaults are the declared fields (a typed field with its type), with their values`, () => {
      const defaults = editorDefinition(type).defaults;
      const declared: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(FIELDS[type]!)) {
        declared[name] = field.value;
        if (field.kind === 'typed') declared[`${name}Type`] = field.types![0];
      }
      assert.deepEqual(Object.keys(defaults).sort(), Object.keys(declared).sort());
      for (const [name, spec] of Object.entries(defaults))
        assert.equal(JSON.stringify(spec.value), JSON.stringify(declared[name]), name);
      // Every field a person can type into has the rule's validator; a config reference keeps Node-RED's check
      // (required unless blank means none: the heartbeat node needs a gateway configuration only for some uses).
      for (const [name, field] of Object.entries(FIELDS[type]!)) {
        const spec = defaults[name]!;
        if (field.kind === 'config')
          assert.deepEqual(
            [spec.type, spec.required, spec.validate],
            [field.configType, field.blank === 'required', undefined],
          );
        else if (field.kind !== 'internal') assert.equal(typeof spec.validate, 'function', name);
      }
    });
  }

  for (const lang of ['en-US', 'de']) {
    it(`${lang}: every label, unit, blank and zero word a declaration names exists`, () => {
      const missing: string[] = [];
      const words = lookup(catalogue(lang, 'smsgw-config'), 'smsgw-config.fields') as Catalogue;
      for (const [type, table] of Object.entries(FIELDS))
        for (const [name, field] of Object.entries(table)) {
          const set = field.label.slice(0, field.label.indexOf('.'));
          if (typeof lookup(catalogue(lang, set), field.label) !== 'string')
            missing.push(`${type}.${name}: ${field.label}`);
          for (const [group, word] of [
            ['unit', field.unit],
            ['blank', field.blank],
            ['zero', field.zero],
            ['when', field.when?.words],
            ...(typeof field.timer === 'object'
              ? Object.values(field.timer.units).map((u) => ['unit', u])
              : []),
          ] as const)
            if (word !== undefined && typeof lookup(words, `${group}.${word}`) !== 'string')
              missing.push(`${type}.${name}: fields.${group}.${word}`);
        }
      assert.deepEqual(missing, []);
    });
  }

  it('the operation lists are the menus of the catalogue', () => {
    for (const [type, keys] of Object.entries(NODE_OPERATIONS)) {
      if (type === 'smsgw-call') continue;
      const options = FIELDS[type]!.operation!.options!.filter((o) => o !== 'auto');
      assert.deepEqual(
        options,
        keys.map((k) => k.split('/')[1]),
        type,
      );
    }
  });

  it("the country codes are libphonenumber-js's, the customer path the client's default", () => {
    assert.deepEqual([...COUNTRY_CODES], getCountries());
    assert.equal(FIELDS['smsgw-config']!.customerPath!.default, DEFAULT_PATHS.customer);
  });

  it('every override that replaces a field of the dialog names a declared field', () => {
    for (const [type, table] of Object.entries(OVERRIDES))
      for (const o of Object.values(table))
        if (o.field)
          assert.ok(FIELDS[type]![o.field.name], `${type}: msg.${o.prop} overrides ${o.field.name}`);
  });

  it("no value a field takes reaches a timer beyond what Node's timers hold (2^31-1 ms)", () => {
    const timers: string[] = [];
    for (const [type, table] of Object.entries(FIELDS))
      for (const [name, field] of Object.entries(table) as [string, Field][]) {
        if (field.timer === undefined) continue;
        timers.push(`${type}.${name}`);
        const units = typeof field.timer === 'number' ? { '': field.timer } : field.timer.ms;
        for (const [unit, ms] of Object.entries(units)) {
          const { max } = rangeOf(field, { sibling: () => unit });
          assert.ok(max !== undefined && max * ms <= TIMER_MAX_MS, `${type}.${name} ${unit}: ${max}`);
        }
      }
    // The fields that become timers (timeouts, waits, poll and lease intervals) are all marked.
    assert.deepEqual(timers.sort(), [
      'smsgw-ask.interval',
      'smsgw-ask.wait',
      'smsgw-config.optOutInterval',
      'smsgw-config.redisLease',
      'smsgw-config.timeout',
      'smsgw-dlr.interval',
      'smsgw-heartbeat.balanceEvery',
      'smsgw-heartbeat.every',
      'smsgw-heartbeat.grace',
      'smsgw-hlr-results.interval',
      'smsgw-inbound.interval',
      'smsgw-send-hlr.waitTimeout',
      'smsgw-send-sms.trackTimeout',
    ]);
  });

  it('the folder the editor runs imports nothing from outside it and uses no Node.js API', () => {
    const dir = path.join(root, 'src', 'nodes', 'fields');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      for (const m of text.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm))
        assert.match(m[1]!, /^\.\/[\w-]+$/, `${file} imports ${m[1]}`);
      assert.doesNotMatch(text, /\brequire\(|\bprocess\.|\bBuffer\b|\bsetTimeout\b|['"]node:/, file);
    }
  });

  it('a new node of every type (with the few fields it needs) is valid as it comes', () => {
    for (const type of NODE_TYPES) assert.deepEqual(refused(type, {}), [], type);
    assert.ok(Object.keys(EXAMPLES).every((t) => NODE_TYPES.includes(t)));
  });
});

describe('nodes: the field rules for the values reported wrong before', () => {
  const C = 'smsgw-config';

  it('budget: a negative or fractional cap or reserve is refused, every one named at once; 0 is a limit', () => {
    assert.deepEqual(refused(C, { budgetHour: -5, budgetDay: 10, budgetReserve: -1 }), [
      'Per hour: a whole number from 0 (segments x recipients), or blank (no limit)',
      'Reserve: a whole number from 0 (segments x recipients), or blank (default 0)',
    ]);
    assert.deepEqual(refused(C, { budgetMonth: '1.5', budgetWarn: 150 }), [
      'Per month: a whole number from 0 (segments x recipients), or blank (no limit)',
      'Warn at: a number from 0 to 100 (% of a limit), or blank (default 80)',
    ]);
    assert.deepEqual(refused(C, { budgetHour: 0, budgetDay: '', budgetWarn: 0 }), []);
  });

  it('quiet hours: a time that is not HH:MM and a time zone Intl does not know are refused while they are on', () => {
    assert.deepEqual(
      refused(C, { quietHours: true, quietStart: '25:00', quietEnd: '8', quietZone: 'Mars/Olympus' }),
      [
        'Quiet from: a time of day such as 21:00 (HH:MM, 24 hours)',
        'until: a time of day such as 21:00 (HH:MM, 24 hours)',
        'Time zone: an IANA time zone name such as Europe/Berlin or UTC, or blank (the time zone of the Node-RED host)',
      ],
    );
    assert.deepEqual(
      refused(C, { quietHours: true, quietStart: '8:30', quietEnd: '07:00', quietZone: 'Europe/Berlin' }),
      [],
    );
    // Off: the window is not judged.
    assert.deepEqual(refused(C, { quietHours: false, quietStart: 'late' }), []);
  });

  it('the configuration: a base URL that is no URL, timeout, connections, in flight and lease time', () => {
    assert.deepEqual(refused(C, { baseUrl: 'abc' }), ['Base URL: a URL starting with http:// or https://']);
    assert.deepEqual(refused(C, { timeout: 1e12, maxConnections: 0, maxConcurrent: 1.5 }), [
      'Timeout: a number above 0, at most 2147483 (seconds), or blank (default 30)',
      'Connections: a whole number from 1 to 1000, or blank (default 8)',
      'In flight: a whole number from 1 to 1000, or blank (as many as Connections)',
    ]);
    assert.deepEqual(refused(C, { coordinate: true, redisLease: 0.5 }), [
      'Lease time: a number from 1 to 2147483 (seconds), or blank (default 15)',
    ]);
    // Not coordinating: the Redis fields are not read, nor judged.
    assert.deepEqual(refused(C, { coordinate: false, redisUrl: 'abc', redisLease: -1 }), []);
  });

  it('ask: a wait of -1, a reply interval of 0 or 1e12, rounds 0 or 1.5, an empty on-call list', () => {
    const A = 'smsgw-ask';
    assert.deepEqual(refused(A, { wait: -1, interval: 0, rounds: 0, numbers: '' }), [
      'On-call list: required (one or more phone numbers)',
      'Wait per step: a number above 0, at most 35791 (minutes), or blank (default 5)',
      'Rounds: a whole number from 1 to 100, or blank (default 1)',
      'Check replies every: a number from 1 to 2147483 (seconds), or blank (default 30)',
    ]);
    assert.deepEqual(refused(A, { rounds: 1.5, interval: 1e12 }).length, 2);
    // A list from the msg is judged for each msg.
    assert.deepEqual(refused(A, { numbers: 'phones', numbersType: 'msg' }), []);
  });

  it('HLR results: a results limit of 1.5; send HLR: a wait of -1; the triggers: an interval "abc"', () => {
    assert.deepEqual(refused('smsgw-hlr-results', { limit: 1.5 }), [
      'Per poll: a whole number from 0 to 2147483647 (results per poll), or blank (default 0)',
    ]);
    assert.deepEqual(refused('smsgw-send-hlr', { waitTimeout: -1 }), [
      'Wait at most: a number above 0, at most 2147483 (seconds), or blank (default 60)',
    ]);
    for (const type of ['smsgw-inbound', 'smsgw-dlr', 'smsgw-hlr-results'])
      assert.deepEqual(refused(type, { interval: 'abc' }), [
        'Poll every: a number from 1 to 2147483 (seconds), or blank (default 60)',
      ]);
  });

  it('an empty Output property means msg.payload (as the runtime does), one that does not parse is refused', () => {
    assert.deepEqual(refused('smsgw-balance', { output: '' }), []);
    assert.deepEqual(refused('smsgw-balance', { output: 'a b' }), [
      'Output: a msg property such as payload or result.sms, or blank (msg.payload)',
    ]);
  });

  it('an environment variable that is not set is refused naming it; a typed field of another type too', () => {
    assert.deepEqual(refused(C, { timeout: '${SMSGW_NOT_SET}' }), [
      'Timeout: the environment variable SMSGW_NOT_SET is not set',
    ]);
    assert.deepEqual(refused('smsgw-balance', { threshold: 'x', thresholdType: 'bogus' }), [
      'Low below: the type bogus is not offered here',
    ]);
  });
});
