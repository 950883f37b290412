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
} as const;

/** The error code the loader logs for a constraint violation of `kind` on this engine. */
export function constraintViolationCode(engine: string, kind: keyof typeof CODES): string {
  return engine === 'oracle' ? CODES[kind].oracle : CODES[kind].postgres;
}

/** Whether a database message names the constraint `name`, in whatever case the engine spells it. */
export function namesConstraint(message: string, name: string): boolean {
  return message.toLowerCase().includes(name.toLowerCase());
}
