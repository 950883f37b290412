/**
 * What discarded every line of a file, for the warning that nothing was loaded from it: the rule
 * named (`when:` or `comment:`/`skip_lines:`) with how many lines each took, so the one to check
 * is the one said.
 */
import type { LoadProfile } from './load-profile.js';

export function discardedBy(profile: LoadProfile, discarded: number, byWhen: number): string {
  const spec = profile.spec;
  const rules: string[] = [];
  if (byWhen > 0) rules.push(`when: ${byWhen}`);
  const other = discarded - byWhen;
  if (other > 0) {
    const named = [
      ...(spec.comment === undefined ? [] : [`comment: ${JSON.stringify(spec.comment)}`]),
      ...(spec.skip_lines > 0 ? [`skip_lines: ${spec.skip_lines}`] : []),
    ];
    rules.push(`${named.length === 0 ? 'comment:' : named.join(' or ')} ${other}`);
  }
  return `check ${rules.map((r) => r.replace(/ (\d+)$/, ' ($1 line(s))')).join(', ')}`;
}
