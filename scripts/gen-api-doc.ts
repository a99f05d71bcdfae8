/**
 * The typed-method reference in docs/api.md (between the `generated:methods` markers), from the catalogue.
 * `npm run generate` writes it (with every other generated output); test/scripts/generate.test.ts fails when
 * it is stale.
 */
import { join } from 'node:path';
import * as prettier from 'prettier';
import { CATALOGUE, DEFAULT_PATHS, type Catalogue } from '../src/catalogue';
import type { OperationDef, ParamDef, ServiceName, TypeRef } from '../src/catalogue/types';
import { methodName } from '../src/client/names';

export const API_DOC_PATH = join(__dirname, '..', 'docs', 'api.md');
const START = '<!-- generated:methods:start (scripts/gen-api-doc.ts) -->';
const END = '<!-- generated:methods:end -->';

const SERVICES: readonly ServiceName[] = ['information', 'send', 'customer', 'legacy'];

function typeText(t: TypeRef): string {
  switch (t.kind) {
    case 'primitive':
      return t.name;
    case 'enum':
      return t.name;
    case 'complex':
      return t.name;
    case 'list':
      return `${typeText(t.item)}[]`;
  }
}

function param(p: ParamDef): string {
  const allowed = p.allowed ? ` (${p.allowed.join(' \\| ')})` : '';
  const max = p.max !== undefined ? ` ≤ ${p.max}` : '';
  return `\`${p.name}${p.optional ? '?' : ''}\`: ${typeText(p.type)}${allowed}${max}`;
}

function resolves(op: OperationDef, catalogue: Catalogue): string {
  if (op.service === 'legacy') {
    switch (op.result.legacy) {
      case 'send':
        return '`{ raw, ok, id, queued }`';
      case 'balance':
        return '`{ raw, ok, balance }`';
      default:
        return '`{ raw, ok, records }`';
    }
  }
  const t = op.result.type;
  if (t.kind === 'list') return '`(CreateJobInfo & { queued })[]`, one per job';
  const envelope = t.kind === 'complex' ? t.name : '';
  const field = catalogue.complexTypes[envelope]?.fields.find((f) => f.name === 'Value');
  const value = field ? typeText(field.type).replace(/^double$/, 'number') : '?';
  return op.sends ? `\`${value} & { queued }\`` : `\`${value}\``;
}

function checks(op: OperationDef): string {
  const parts = op.service === 'legacy' ? ['`Error …` → REJECTED'] : ['StatusCode ≠ Ok → AUTH'];
  if (op.statusCheck) {
    const field = op.statusCheck.path.join('.') || 'Status';
    const queued = op.statusCheck.queued?.length
      ? `; ${op.statusCheck.queued.join(', ')} → queued: true`
      : '';
    parts.push(`${field} ≠ ${op.statusCheck.ok.join('/')} → REJECTED${queued}`);
  }
  return parts.join('; ');
}

export function methodsSection(catalogue: Catalogue = CATALOGUE): string {
  let out = `${START}\n`;
  for (const s of SERVICES) {
    out += `\n### \`client.${s}\` (${DEFAULT_PATHS[s]})\n\n`;
    out +=
      '| Method | Operation | Parameters (credentials filled in) | Resolves with | Errors from the answer |\n';
    out += '|---|---|---|---|---|\n';
    for (const op of catalogue.of(s)) {
      const params =
        op.params
          .filter((p) => !p.credential)
          .map(param)
          .join(', ') || '—';
      const sends = op.sends ? ' (sends; never retried)' : '';
      out += `| \`${methodName(op)}\` | ${op.name}${sends} | ${params} | ${resolves(op, catalogue)} | ${checks(op)} |\n`;
    }
  }
  return `${out}\n${END}`;
}

/** docs/api.md with the generated section replaced, formatted by prettier as the repository is. */
export async function renderApiDoc(current: string, catalogue: Catalogue = CATALOGUE): Promise<string> {
  const a = current.indexOf(START);
  const b = current.indexOf(END);
  if (a < 0 || b < a) throw new Error('docs/api.md lacks the generated:methods markers');
  const text = current.slice(0, a) + methodsSection(catalogue) + current.slice(b + END.length);
  const config = (await prettier.resolveConfig(API_DOC_PATH)) ?? {};
  return prettier.format(text, { ...config, filepath: API_DOC_PATH });
}
