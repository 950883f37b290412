/**
 * Values a profile takes from the file's name (`file_pattern` with named groups, `file_group` in
 * a column): one profile serves every partner file whose name carries, say, its currency. The
 * pattern is matched against the whole base name; a name it does not match refuses the file
 * before anything of it is staged.
 */
import { basename } from 'node:path';
import { UserError } from '../../errors.js';
import type { LoadProfile } from './load-profile.js';

/** The named groups of `file_pattern` on a file's base name ({} without a pattern). */
export function fileNameValues(profile: LoadProfile, path: string | undefined): Record<string, string> {
  const pattern = profile.spec.file_pattern;
  if (pattern === undefined || path === undefined) return {};
  const name = basename(path);
  const match = new RegExp(`^(?:${pattern})$`).exec(name);
  if (match === null)
    throw new UserError(
      `${path}: the name ${JSON.stringify(name)} does not match file_pattern /${pattern}/ of profile ${profile.name}: the file is not read`,
    );
  // a group that took no part in the match is an empty value
  const groups: Record<string, string | undefined> = match.groups ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) out[k] = v ?? '';
  return out;
}
