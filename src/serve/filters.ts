/**
 * The rejected rows' filters, as the query string carries them (checked with zod), and what they
 * select: a file or a profile is the loads that read it, found in the run history.
 */
import { z } from 'zod';
import type { OrderLoader } from '../loader.js';

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const optionalText = z
  .string()
  .trim()
  .max(1000)
  .transform((v) => (v === '' ? undefined : v))
  .optional();

export const filterSchema = z.object({
  load: z.union([z.literal('').transform(() => undefined), id]).optional(),
  file: optionalText,
  profile: optionalText,
  code: optionalText,
  phase: z
    .enum(['', 'PARSE', 'VALIDATE', 'MERGE'])
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  before: id.optional(),
  /** The lines refused without a stage row: the page after this error_id. */
  lines_after: id.optional(),
});

export type ReviewFilter = z.infer<typeof filterSchema>;

/** The filter of a query string; a value that is not one is said, not ignored. */
export function parseFilter(query: Record<string, string>): ReviewFilter {
  return filterSchema.parse(query);
}

/** The query string of a filter (without `before` unless given), for links and forms. */
export function filterQuery(filter: ReviewFilter, before?: number | null): string {
  const params = new URLSearchParams();
  for (const key of ['load', 'file', 'profile', 'code', 'phase'] as const) {
    const v = filter[key];
    if (v !== undefined) params.set(key, String(v));
  }
  if (before !== undefined && before !== null) params.set('before', String(before));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Runs read to find the loads of a file or profile. */
export const RUNS_SEARCHED = 500;

/** A load as the run history names it: its file and profile. */
export interface KnownLoad {
  loadId: number;
  fileName: string | null;
  profile: string | null;
  /** The file's size and encoding as its load read it (to read a line from it again: src/serve/file-lines.ts). */
  fileSize: number | null;
  encoding: string | null;
}

/** The loads of the newest RUNS_SEARCHED runs that staged a file (a run resuming a load names that load). */
export async function knownLoads(loader: OrderLoader): Promise<KnownLoad[]> {
  const loads = new Map<number, KnownLoad>();
  for (const run of await loader.runs(RUNS_SEARCHED)) {
    if (run.command !== 'load' && run.command !== 'stage') continue;
    if (run.fileName === null) continue;
    const named = run.events.find((e) => typeof e.detail?.loadId === 'number')?.detail?.loadId;
    const loadId = typeof named === 'number' ? named : run.runId;
    const encoding = run.events.find((e) => e.event === 'invoked')?.detail?.encoding;
    if (!loads.has(loadId))
      loads.set(loadId, {
        loadId,
        fileName: run.fileName,
        profile: run.profile?.name ?? null,
        fileSize: run.fileSize,
        encoding: typeof encoding === 'string' ? encoding : null,
      });
  }
  return [...loads.values()];
}

/**
 * The load ids a filter selects: undefined when it names no load, file or profile (every load);
 * an empty list when it names a file or profile no load read (nothing matches).
 */
export async function selectedLoadIds(loader: OrderLoader, filter: ReviewFilter): Promise<number[] | undefined> {
  if (filter.file === undefined && filter.profile === undefined) return filter.load === undefined ? undefined : [filter.load];
  const ids = (await knownLoads(loader))
    .filter((l) => filter.file === undefined || l.fileName === filter.file || baseName(l.fileName) === filter.file)
    .filter((l) => filter.profile === undefined || l.profile === filter.profile)
    .filter((l) => filter.load === undefined || l.loadId === filter.load)
    .map((l) => l.loadId);
  return ids;
}

function baseName(path: string | null): string | null {
  return path === null ? null : (path.split(/[\\/]/).pop() ?? path);
}
