/**
 * `npm run generate`: writes every output derived from the catalogue, so that adding an operation is the
 * catalogue entry (and its types and emulator logic) plus this one command:
 *   - src/client/types.generated.ts (scripts/gen-client-types.ts),
 *   - the typed-method reference in docs/api.md (scripts/gen-api-doc.ts),
 *   - the operation lists of docs/nodes.md, docs/emulator.md and the node help (scripts/gen-doc-lists.ts),
 *   - the msg override lists of the node help and the override table of docs/nodes.md, from the nodes' override
 *     table (scripts/gen-overrides.ts),
 *   - resources/fields.js, the field tables and their checker for the editor, the field lists of the node help and
 *     the field table of docs/nodes.md (scripts/gen-fields.ts),
 *   - the golden requests in test/fixtures/requests (scripts/gen-golden-requests.ts; goldens of operations no
 *     longer in the catalogue are removed).
 * Tests fail on a stale output and name this command (test/scripts/generate.test.ts, the golden test).
 */
import { existsSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CATALOGUE, type Catalogue } from '../src/catalogue';
import { counted } from '../src/count';
import { API_DOC_PATH, renderApiDoc } from './gen-api-doc';
import { GENERATED_TYPES_PATH, generateClientTypes } from './gen-client-types';
import {
  EMULATOR_DOC_PATH,
  HELP_LANGS,
  NODES_DOC_PATH,
  helpPath,
  menuNodes,
  renderEmulatorDoc,
  renderHelp,
  renderNodesDoc,
} from './gen-doc-lists';
import { GOLDEN_REQUESTS_DIR, goldenRequests } from './gen-golden-requests';
import { overrideNodeTypes, renderHelpOverrides, renderNodesDocOverrides } from './gen-overrides';
import { FIELDS_JS_PATH, renderFieldsJs, renderHelpFields, renderNodesDocFields } from './gen-fields';
import { FIELDS } from '../src/nodes/fields';

export interface GeneratedFile {
  readonly path: string;
  readonly text: string;
}

const read = (path: string): string => readFileSync(path, 'utf8');

/** Every generated file with the text it must have (files that hold hand-written parts keep them). */
export async function generatedFiles(catalogue: Catalogue = CATALOGUE): Promise<GeneratedFile[]> {
  const out: GeneratedFile[] = [
    { path: GENERATED_TYPES_PATH, text: await generateClientTypes(catalogue) },
    { path: API_DOC_PATH, text: await renderApiDoc(read(API_DOC_PATH), catalogue) },
    {
      path: NODES_DOC_PATH,
      text: renderNodesDocFields(renderNodesDocOverrides(renderNodesDoc(read(NODES_DOC_PATH), catalogue))),
    },
    { path: EMULATOR_DOC_PATH, text: renderEmulatorDoc(read(EMULATOR_DOC_PATH), catalogue) },
    { path: FIELDS_JS_PATH, text: renderFieldsJs() },
  ];
  const menus = new Set(Object.keys(menuNodes(catalogue)));
  const overrides = new Set(overrideNodeTypes());
  const fields = new Set(Object.keys(FIELDS));
  for (const nodeType of new Set([...menus, ...overrides, ...fields])) {
    for (const lang of HELP_LANGS) {
      const path = helpPath(lang, nodeType);
      let text = read(path);
      if (menus.has(nodeType)) text = renderHelp(text, lang, nodeType, catalogue);
      if (overrides.has(nodeType)) text = renderHelpOverrides(text, lang, nodeType);
      if (fields.has(nodeType)) text = renderHelpFields(text, lang, nodeType);
      out.push({ path, text });
    }
  }
  for (const [file, text] of goldenRequests(catalogue))
    out.push({ path: join(GOLDEN_REQUESTS_DIR, file), text });
  return out;
}

/** Golden request files no operation of the catalogue makes. */
export function orphanGoldens(catalogue: Catalogue = CATALOGUE): string[] {
  const expected = goldenRequests(catalogue);
  return readdirSync(GOLDEN_REQUESTS_DIR)
    .filter((f) => !expected.has(f))
    .map((f) => join(GOLDEN_REQUESTS_DIR, f));
}

/** The generated files whose content differs from what is on disk (missing ones included). */
export async function staleFiles(catalogue: Catalogue = CATALOGUE): Promise<string[]> {
  const files = await generatedFiles(catalogue);
  return files.filter((f) => !existsSync(f.path) || read(f.path) !== f.text).map((f) => f.path);
}

async function main(): Promise<void> {
  const root = join(__dirname, '..');
  let changed = 0;
  for (const f of await generatedFiles()) {
    if (existsSync(f.path) && read(f.path) === f.text) continue;
    writeFileSync(f.path, f.text);
    console.log(`wrote ${relative(root, f.path)}`);
    changed++;
  }
  for (const path of orphanGoldens()) {
    unlinkSync(path);
    console.log(`removed ${relative(root, path)}`);
    changed++;
  }
  console.log(changed ? `${counted(changed, 'file')} regenerated` : 'every generated output is current');
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
