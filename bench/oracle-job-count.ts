/**
 * Writes the Oracle job's test count into docs/oracle.md (npm run docs:oracle-count, from the
 * repository's root) between the oracle-job-count markers (oracle-job-list.ts). Kept beside the
 * bench's tooling so that build:emit compiles it (dist/bench/oracle-job-count.js).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { COUNT_MARKERS, oracleJobCountText, oracleJobTestFiles } from './oracle-job-list.js';

const text = oracleJobCountText(oracleJobTestFiles(process.cwd()));
const doc = readFileSync('docs/oracle.md', 'utf8');
if (!COUNT_MARKERS.test(doc)) throw new Error('docs/oracle.md has no oracle-job-count markers');
writeFileSync('docs/oracle.md', doc.replace(COUNT_MARKERS, `<!-- oracle-job-count -->${text}<!-- /oracle-job-count -->`));
process.stdout.write(`${text}\n`);
