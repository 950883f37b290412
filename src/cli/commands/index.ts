/** Every command's module, in the order `order-loader help` lists them. */
import type { CommandSpec } from '../command.js';
import type { Command } from '../options.js';
import { bench } from './bench.js';
import { errors } from './errors.js';
import { guess } from './guess.js';
import { init } from './init.js';
import { load } from './load.js';
import { preview } from './preview.js';
import { processCommand } from './process.js';
import { recover } from './recover.js';
import { accept } from './accept.js';
import { retry } from './retry.js';
import { runs } from './runs.js';
import { serve } from './serve.js';
import { stage } from './stage.js';
import { status } from './status.js';

export const COMMAND_TABLE: Record<Command, CommandSpec> = {
  init,
  load,
  stage,
  process: processCommand,
  status,
  retry,
  recover,
  accept,
  errors,
  runs,
  guess,
  preview,
  bench,
  serve,
};
