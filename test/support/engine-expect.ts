/**
 * What a shared integration test expects, said once for every engine: PostgreSQL reports a
 * SQLSTATE and keeps a constraint's name as written (lower case); Oracle reports ORA-nnnnn and
 * names the constraint in upper case, with its schema (ORA-02290: check constraint
 * (LOADER.TEST_REFUSE_XXX) violated).
 */

const CODES = {
  /** a CHECK constraint refused the row */
  check: { postgres: '23514', oracle: 'ORA-02290' },
  /** a unique constraint refused the row */
  unique: { postgres: '23505', oracle: 'ORA-00001' },
  /** a value too large for its column's precision (orders.amount numeric(12,2) / NUMBER(12,2)) */
  overflow: { postgres: '22003', oracle: 'ORA-01438' },
} as const;

/**
 * The engine-neutral names of the database's own refusals, for expectations written once for
 * every engine (expected-state.ts, errors-export.test.ts): `db:overflow` stands for 22003 on
 * PostgreSQL and ORA-01438 on Oracle. A stored code goes through {@link neutralCode} before it
 * is compared with one.
 */
export type NeutralDbCode = `db:${keyof typeof CODES}`;

export function dbCode(kind: keyof typeof CODES): NeutralDbCode {
  return `db:${kind}`;
}

/** A code the loader stored, in the neutral vocabulary when it is a database refusal named here; others (PARSE_*, INVALID_*) as they are. */
export function neutralCode<C extends string | null>(code: C): C | NeutralDbCode {
  if (code === null) return code;
  for (const [kind, codes] of Object.entries(CODES))
    if (code === codes.postgres || code === codes.oracle) return `db:${kind as keyof typeof CODES}`;
  return code;
}

/** The error code the loader logs for a constraint violation of `kind` on this engine. */
export function constraintViolationCode(engine: string, kind: keyof typeof CODES): string {
  return engine === 'oracle' ? CODES[kind].oracle : CODES[kind].postgres;
}

/** Whether a database message names the constraint `name`, in whatever case the engine spells it. */
export function namesConstraint(message: string, name: string): boolean {
  return message.toLowerCase().includes(name.toLowerCase());
}
