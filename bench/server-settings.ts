/**
 * The server's settings that differ from PostgreSQL's built-in defaults, printed beside every
 * benchmark figure: a ratio measured with autovacuum off or a large max_wal_size is not the ratio
 * a user with default settings gets, and a user comparing with our figures needs to see theirs.
 * A setting counts when its value is not its boot value and it was not set by the server itself
 * for this session (source `default`, `override`: data_directory, the encoding, …; `client` and
 * `session`: the connection's own). Paths, file names and the log's own settings are left out:
 * they say where things are, not how fast the server works.
 */
import { withAdmin, type AdminServer } from './pg-admin.js';

export interface ServerSetting {
  name: string;
  setting: string;
  unit: string | null;
  source: string;
}

const NOT_ABOUT_SPEED =
  /^(log_|lc_|.*_file$|.*_directory$|cluster_name$|ssl|unix_socket|timezone|datestyle|default_text_search_config$|dynamic_shared_memory_type$|listen_addresses$|port$)/i;

export async function nonDefaultSettings(admin: AdminServer): Promise<{ version: string; settings: ServerSetting[] }> {
  return withAdmin(admin, async (client) => {
    const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
    const { rows } = await client.query<ServerSetting>(
      `SELECT name, setting, unit, source FROM pg_settings
        WHERE source NOT IN ('default', 'override', 'client', 'session')
          AND setting IS DISTINCT FROM boot_val
        ORDER BY name`,
    );
    return { version, settings: rows.filter((s) => !NOT_ABOUT_SPEED.test(s.name)) };
  });
}

/** One line: `name=value unit` for each, or "none" (every setting affecting speed at its default). */
export function settingsLine(s: { version: string; settings: ServerSetting[] }): string {
  const list = s.settings.map((x) => `${x.name}=${x.setting}${x.unit === null ? '' : ` ${x.unit}`}`);
  return `PostgreSQL ${s.version}; settings not at their defaults: ${list.length === 0 ? 'none' : list.join(', ')}`;
}
