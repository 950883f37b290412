/**
 * CLI over the generator in src/bench/synthetic-orders.ts (shared with `order-loader bench`):
 * node dist/bench/generate.js --rows N [--seed S] [--overflow-rate R] [--missing-rate R] --out FILE
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generateOrderFile } from '../src/bench/synthetic-orders.js';

export * from '../src/bench/synthetic-orders.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '42' },
      'missing-rate': { type: 'string', default: '0.01' },
      'overflow-rate': { type: 'string', default: '0.001' },
      out: { type: 'string' },
    },
  });
  if (values.out === undefined) throw new Error('--out FILE is required');
  const result = await generateOrderFile(values.out, {
    rows: Number(values.rows),
    seed: Number(values.seed),
    missingRate: Number(values['missing-rate']),
    overflowRate: Number(values['overflow-rate']),
  });
  process.stdout.write(`${JSON.stringify({ file: values.out, ...result })}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
