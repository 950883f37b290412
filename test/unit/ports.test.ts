import { describe, expectTypeOf, it } from 'vitest';
import type { Engine } from '../../src/engine/contract.js';
import type {
  AbandonedRunsPort,
  ErrorExportPort,
  LoadPort,
  OperatorPort,
  ProcessingPort,
  ProcessRunPort,
  RunRecordPort,
  StagingPort,
} from '../../src/pipeline/ports.js';

// Checked by `tsc -p tsconfig.test.json`: a whole Engine can be handed to every pipeline module.
describe('pipeline ports', () => {
  it('a whole Engine fits each of them', () => {
    expectTypeOf<Engine>().toExtend<StagingPort>();
    expectTypeOf<Engine>().toExtend<ProcessingPort>();
    expectTypeOf<Engine>().toExtend<OperatorPort>();
    expectTypeOf<Engine>().toExtend<AbandonedRunsPort>();
    expectTypeOf<Engine>().toExtend<ErrorExportPort>();
    expectTypeOf<Engine>().toExtend<RunRecordPort>();
    expectTypeOf<Engine>().toExtend<LoadPort>();
    expectTypeOf<Engine>().toExtend<ProcessRunPort>();
  });
  it('the load port fits the ports of the modules it calls', () => {
    expectTypeOf<LoadPort>().toExtend<StagingPort>();
    expectTypeOf<LoadPort>().toExtend<ProcessingPort>();
    expectTypeOf<LoadPort>().toExtend<RunRecordPort>();
    expectTypeOf<ProcessRunPort>().toExtend<ProcessingPort>();
    expectTypeOf<ProcessRunPort>().toExtend<RunRecordPort>();
  });
});
