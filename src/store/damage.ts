/**
 * What a store tells when a file is not as it was written: damaged (read in part; the file copied aside) or
 * missing (written before, listed in the manifest, and gone). Both are told as loudly: one log line naming the
 * file, what was kept and what was lost.
 */

export interface StateDamage {
  file: string;
  /** damaged: read in part; missing: the manifest lists it (it was written) and it is not there. */
  kind: 'damaged' | 'missing';
  /** The copy of the damaged file (`<file>.damaged-<ms>`), or undefined when none was made (or it is missing). */
  aside: string | undefined;
  /** Why it could not be read whole. */
  why: string;
  /** What was kept (and is used now), e.g. "pending (2 items)"; empty when nothing. */
  kept: string[];
  /** What was lost. */
  lost: string[];
}

/** The parameters of the nodes' messages about a damaged or missing state file (errors.stateDamaged/Missing). */
export const damageParams = (d: StateDamage): Record<string, string> => ({
  file: d.file,
  aside: d.aside ?? '-',
  why: d.why,
  kept: d.kept.length > 0 ? d.kept.join(', ') : '-',
  lost: d.lost.join(', '),
});

/** The i18n key (the config node's shared catalogue) of a damage's message. */
export const damageKey = (d: StateDamage): string =>
  d.kind === 'missing' ? 'errors.stateMissing' : 'errors.stateDamaged';

/** One line for logs outside Node-RED's catalogue (tests, the framework-free parts). */
export function damageText(d: StateDamage): string {
  const p = damageParams(d);
  return d.kind === 'missing'
    ? `State file ${p.file} is missing (${p.why}): what it held is lost`
    : `State file ${p.file} could not be read whole (${p.why}): copied to ${p.aside}. Kept and used: ${p.kept}. Lost: ${p.lost}.`;
}
