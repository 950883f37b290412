import { writeFileSync } from 'node:fs';
import type { Engine } from '../../engine/types.js';
import { EXIT_FAILED, EXIT_OK } from '../../pipeline/outcome.js';
import { print, withLoader, type CommandSpec } from '../command.js';
import { escapeControl } from '../escape.js';
import { checkChartPath } from '../output-files.js';
import { renderBench } from '../render.js';
import { loadProfileFile } from '../../input/profile/load-profile.js';

/** Synthetic rows per case unless --rows says how many. */
const ROWS = 100_000;

/** The worker counts measured unless --workers says others. */
const WORKERS = [1, 2, 4];

export const bench: CommandSpec = {
  usage: {
    label: 'bench',
    summary: `synthetic orders staged and processed per --chunk-sizes × --workers, in a workspace
of its own (dropped afterwards: a schema on PostgreSQL, OLB_<id>_ tables on Oracle);
a table, --json, and an SVG chart (--chart path)
--rows (default 100000), --chunk-sizes (default 500,2000,10000), --workers (default ${WORKERS.join(',')})`,
    synopsis: 'bench [--rows <n>] [--chunk-sizes <list>] [--workers <list>] [--profile <file>] [--chart <path>] [--json]',
    about:
      'Synthetic orders staged and processed per chunk size × workers, each in a workspace of its own (dropped): a schema on PostgreSQL, prefixed tables on Oracle.',
    options: [
      { option: 'rows', text: `default ${ROWS}` },
      'chunk-sizes',
      { option: 'workers', arg: '<list>', text: `default ${WORKERS.join(',')}` },
      { option: 'batch-size', text: 'lines per staging transaction of each case (default 5000)' },
      {
        option: 'profile',
        text: `write the synthetic file in this load profile's shape (delimiter, header names or
positions, first date mask, number style, encoding, fixed-width positions) and stage it
through the profile; a profile it cannot write is refused, naming the key`,
      },
      'chart',
    ],
    exitCodes: 'Exit codes: 0 done; 1 interrupted or could not run.',
  },
  async run(ctx) {
    const { options, logger, signal } = ctx;
    checkChartPath(options.chart);
    // the bench's modules only for the bench: no other command's start-up pays for them
    const [{ runBench }, { renderChart }, { profileShape }] = await Promise.all([
      import('../../bench/run-bench.js'),
      import('../../bench/chart.js'),
      import('../../bench/profile-shape.js'),
    ]);
    const workers = options.workers ?? WORKERS;
    const rows = options.rows ?? ROWS;
    // refused before the database is opened: a bad profile, or one the bench cannot write
    const profile = options.profile === undefined ? undefined : loadProfileFile(options.profile);
    const shaped = profile === undefined ? undefined : { profile, shape: profileShape(profile, rows) };
    // where the bench's run is not in the loader's history (Oracle), the loader's schema is
    // not touched either: no migration, no statement on its tables
    const migrate = (engine: Engine) => engine.benchRunInLoaderHistory;
    return withLoader(ctx, { workers: Math.max(...workers), migrate }, async (loader) => {
      const report = await runBench(loader.engine, {
        rows,
        profile: shaped,
        chunkSizes: options['chunk-sizes'],
        workers,
        batchSize: options['batch-size'],
        logger,
        signal,
        onCase: options.json
          ? undefined
          : (c) =>
              ctx.session.io.stderr.write(
                `bench: chunk ${c.chunkSize}, ${c.workers} worker(s): ${c.endToEndRowsPerSec} rows/s end to end\n`,
              ),
      });
      // only complete cases are charted (a cut-short case is no measurement)
      writeFileSync(
        options.chart,
        renderChart(
          report.cases,
          `order-loader bench: ${report.rows} rows on ${report.engine}${report.interrupted ? ' (interrupted: complete cases only)' : ''}`,
        ),
      );
      print(
        ctx.session,
        options.json
          ? JSON.stringify({ ...report, chart: options.chart })
          : `${renderBench(report)}\nchart: ${escapeControl(options.chart)}`,
      );
      if (report.interrupted) ctx.session.io.stderr.write('order-loader: bench interrupted: the workspace was dropped\n');
      return report.interrupted ? EXIT_FAILED : EXIT_OK;
    });
  },
};
