/** A state file's content as the store reads it (tests look into state files). */
import { readFileSync } from 'node:fs';
import { readState } from '../../src/store';

export function readStateFile<T = Record<string, unknown>>(file: string): T {
  const read = readState(readFileSync(file, 'utf8'));
  if (read.damage !== undefined) throw new Error(`${file}: ${read.damage}`);
  return read.value as T;
}
