/**
 * Giving a test database back for the next test instead of making a new one: a PGlite clone
 * costs about 0.6–1 s of CPU to load (its WebAssembly heap, its shared_buffers zeroed,
 * the data folder unpacked), a server database about 0.35 s to create and drop; emptying one
 * costs a few milliseconds. Measured on `npm test` (2 cores): 92 PGlite loads took 91 s of the
 * workers' time.
 *
 * A database is reused only when it is provably back in its template's state: its tables
 * emptied with their identities restarted, its planner statistics and activity counters
 * cleared, and then a fingerprint of everything a test could have changed (tables, columns,
 * constraints, indexes, functions, triggers, sequences, statistics, database settings, and the
 * content of the tables the template itself fills) equal to the one taken when it was new.
 * Anything else (a failed test, a schema a test altered, a session of a loader still on it, a
 * transaction the test left open) discards it. A server database keeps the sessions of the
 * test's own statements (db.sql): they are brought back to a new session's state first
 * (DISCARD ALL, their activity counters flushed), then one of them runs the reset.
 */

/** How the reset reaches the database: plain SQL, each statement committed on its own. */
export interface ResetSession {
  query<R>(text: string): Promise<R[]>;
}

/** What a database looked like when it was new: which tables a reset empties, and its fingerprint. */
export interface TemplateState {
  emptied: string[];
  kept: string[];
  fingerprint: string;
}

const USER_NAMESPACE = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'`;

/** Empty the tables and clear statistics and counters (the part of a reset that changes anything). */
async function clear(session: ResetSession, emptied: string[]): Promise<void> {
  if (emptied.length > 0) await session.query(`TRUNCATE ${emptied.join(', ')} RESTART IDENTITY CASCADE`);
  // ANALYZE's histograms survive TRUNCATE; a new database from the template has none
  await session.query(
    `DELETE FROM pg_statistic WHERE starelid IN (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NAMESPACE})`,
  );
  await session.query('SELECT pg_stat_reset()');
}

async function fingerprint(session: ResetSession, kept: string[]): Promise<string> {
  const parts = [
    `SELECT format('rel %s.%s %s %s %s %s %s', n.nspname, c.relname, c.relkind, c.reltuples, c.relpages, c.reloptions, c.relacl)
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('col %s %s %s %s %s %s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
              a.attidentity, a.attisdropped, pg_get_expr(d.adbin, d.adrelid))
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attnum > 0 AND ${USER_NAMESPACE}`,
    `SELECT format('con %s %s %s', co.conrelid::regclass, co.conname, pg_get_constraintdef(co.oid))
       FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('fn %s %s %s', p.oid::regprocedure, p.prokind, md5(coalesce(p.prosrc, '') || coalesce(array_to_string(p.proconfig, ','), '')))
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('trg %s', pg_get_triggerdef(t.oid)) FROM pg_trigger t WHERE NOT t.tgisinternal`,
    `SELECT format('rule %s %s', r.ev_class::regclass, r.rulename) FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('policy %s %s', pol.polrelid::regclass, pol.polname) FROM pg_policy pol`,
    `SELECT format('type %s.%s %s', n.nspname, t.typname, t.typtype) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('seq %s.%s %s', schemaname, sequencename, last_value) FROM pg_sequences`,
    `SELECT format('stats %s', count(*)) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NAMESPACE}`,
    `SELECT format('extstats %s', count(*)) FROM pg_statistic_ext`,
    `SELECT format('analyzed %s %s', relid::regclass, last_analyze IS NULL AND last_autoanalyze IS NULL) FROM pg_stat_user_tables`,
    `SELECT format('nsp %s %s', n.nspname, n.nspacl) FROM pg_namespace n WHERE ${USER_NAMESPACE}`,
    `SELECT format('ext %s %s', extname, extversion) FROM pg_extension`,
    `SELECT format('dbset %s', setconfig) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = current_database()`,
    ...kept.map(
      (table) =>
        `SELECT format('rows %s %s', '${table.replaceAll("'", "''")}', md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), ''))) FROM ${table} t`,
    ),
  ];
  const rows = await session.query<{ fingerprint: string }>(
    `SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS fingerprint FROM (${parts.map((p) => `(${p})`).join(' UNION ALL ')}) AS s(x)`,
  );
  return rows[0]?.fingerprint ?? '';
}

/** On a new database: which tables a reset empties (those the template leaves empty), and the state to come back to. */
export async function templateState(session: ResetSession): Promise<TemplateState> {
  const tables = await session.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND ${USER_NAMESPACE} ORDER BY 1`,
  );
  const emptied: string[] = [];
  const kept: string[] = [];
  for (const { name } of tables) {
    const [row] = await session.query<{ filled: boolean }>(`SELECT EXISTS (SELECT FROM ${name}) AS filled`);
    (row?.filled === true ? kept : emptied).push(name);
  }
  await clear(session, emptied);
  return { emptied, kept, fingerprint: await fingerprint(session, kept) };
}

/** After a test: bring the database back; true when it provably is (else the caller discards it). */
export async function resetToTemplate(session: ResetSession, state: TemplateState): Promise<boolean> {
  await clear(session, state.emptied);
  return (await fingerprint(session, state.kept)) === state.fingerprint;
}
