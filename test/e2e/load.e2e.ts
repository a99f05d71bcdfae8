/**
 * The package as a user gets it: packed, installed with npm into a Node-RED user directory, started with
 * NODE_OPTIONS unset. Node-RED keeps running when a node set fails to load, so we look for the failure in
 * GET /nodes and in the log instead of trusting that it started.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DEMO, examplesForDeploy, listExamples } from '../../scripts/lib/flows';
import { deployFlows, getNodeSets } from '../../scripts/lib/nodered';
import { listServedExamples } from './examples';
import { MODULE, NODE_TYPES, nodeBin, nodeRedVersion, startStack, type Stack } from './stack';

const nodeVersion = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();

/** Log lines at warn or error level that mention this package or one of its node types. */
export function ourProblems(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => /\[(warn|error)\]/.test(l))
    .filter((l) => l.includes(MODULE) || /\bsmsgw[-\w]*/.test(l));
}

describe(`load and deploy: Node-RED ${nodeRedVersion} on node ${nodeVersion}`, function () {
  let stack: Stack;
  before(async function () {
    stack = await startStack('load');
  });
  after(async function () {
    await stack?.stop();
  });

  it('starts the requested Node-RED version', function () {
    assert.match(
      stack.nodeRed.proc.output(),
      new RegExp(`Node-RED version: v${nodeRedVersion.replace(/\./g, '\\.')}`),
    );
  });

  it('runs Node-RED with NODE_OPTIONS unset (no loader of ours helps it load the package)', function () {
    const environ = readFileSync(`/proc/${stack.nodeRed.proc.child.pid}/environ`, 'utf8').split('\0');
    assert.deepEqual(
      environ.filter((e) => e.startsWith('NODE_OPTIONS=')),
      [],
    );
  });

  it('loads every node set of the package enabled and without error', async function () {
    const sets = await getNodeSets(stack.nodeRed.url, MODULE);
    assert.ok(sets.length > 0, `GET /nodes lists no set of ${MODULE}`);
    for (const s of sets) {
      assert.equal(s.err, undefined, `${s.id}: ${s.err}`);
      assert.equal(s.enabled, true, `${s.id} is disabled`);
    }
    const types = new Set(sets.flatMap((s) => s.types));
    for (const t of NODE_TYPES) assert.ok(types.has(t), `node type ${t} is not registered`);
  });

  it('serves every example flow from GET /library/examples/flows/<module>', async function () {
    const served = await listServedExamples(stack.nodeRed.url, MODULE);
    const shipped = listExamples()
      .map((e) => e.name)
      .sort();
    assert.ok(shipped.length > 0, 'examples/ holds no flow');
    assert.deepEqual(served, shipped);
  });

  it('deploys the example flows against the emulator', async function () {
    await deployFlows(stack.nodeRed.url, examplesForDeploy(stack.emulator.url));
    const res = await fetch(`${stack.nodeRed.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } });
    const text = await res.text();
    // The credentials went in with the deploy; the exported flows must not carry them back out.
    assert.ok(!text.includes(DEMO.password), 'GET /flows exposes the gateway password');
    const { flows } = JSON.parse(text) as { flows: { type: string }[] };
    const deployed = new Set(flows.map((n) => n.type));
    for (const t of NODE_TYPES) assert.ok(deployed.has(t), `no ${t} node in the deployed examples`);
    // let the polling nodes make their first calls so their failures would reach the log
    await new Promise((r) => setTimeout(r, 3000));
  });

  it('logs no warning or error about the package at load and deploy', function () {
    const log = readFileSync(stack.nodeRedLog, 'utf8');
    assert.match(log, /Started flows/);
    assert.deepEqual(ourProblems(log), []);
  });
});
