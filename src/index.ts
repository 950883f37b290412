/** order-loader as a library: the same operations as the CLI. */
export { OrderLoader, type OpenLoaderOptions } from './loader.js';
export { STATUS_RECENT_LOADS, type LoadStatus, type StatusFilter } from './loader-status.js';
export type { LoadOptions, LoadReport, LoadProcessCounts, FileReport, ProcessReport, ProcessRunOptions } from './pipeline/load.js';
export type { FileStageCounts } from './pipeline/stage.js';
export type { ProcessCounts } from './pipeline/process.js';
export type { Engine, EngineTx, StatusReport, RunRecord, RunEventRecord, ProcessStatus } from './engine/types.js';
export { UserError, RunAbortedError } from './errors.js';
export { DatabaseBusyError, type LockHolder } from './engine/folder-lock.js';
export { parseDbUrl, maskDbUrl, DEFAULT_DB } from './engine/db-url.js';
export { parseOrderRecord, validateOrder, ORDER_COLUMNS } from './input/order-record.js';
export { createLogger } from './log.js';
export { tuneWasmTiering, PGLITE_WASM_TIERING_BUDGET } from './engine/postgres/pglite-assets.js';
export { EXIT_OK, EXIT_FAILED, EXIT_ROWS_REJECTED, dryRunExitCode } from './pipeline/outcome.js';
export type { RetryRequest, RecoverRequest, ManualChangeReport } from './pipeline/operations.js';
export type { DryRunResult, DryRunCounts } from './pipeline/dry-run-file.js';
export type { ErrorRowReport, RowSelector, ManualChange } from './engine/types.js';
export type { ErrorExportRow, ErrorExportFilter } from './pipeline/errors-export.js';
export { loadProfileFile, parseProfileText, type LoadProfile } from './input/profile/load-profile.js';
export { profileSchema, profileJsonSchema, type LoadProfileSpec } from './input/profile/schema.js';
export { BUILTIN_PROFILE } from './input/profile/builtin.js';
export { loadProfileFolder, profileMatches, routeFiles, type FileRouting, type UnmatchedFile } from './input/profile/routing.js';
export type { DryRunFileResult } from './loader-dry-run.js';
export { guessProfile, type ProfileGuess } from './input/guess/index.js';
export {
  previewFile,
  type PreviewOptions,
  type PreviewResult,
  type PreviewLine,
  type PreviewField,
  type PreviewTotals,
} from './pipeline/preview.js';
