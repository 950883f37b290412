/**
 * The Oracle engine over the recording connection answered by the table model (table-model.ts),
 * and a staging line to give it: shared by the model checks (statement-checks.ts,
 * later-load-checks.ts).
 */
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import type { StageInput } from '../../src/engine/types.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { TableModel } from './table-model.js';

export function modelled(model = new TableModel(), settings: { stageDirect?: boolean } = {}) {
  const db = new RecordingDatabase(model.script());
  const engine = createOracleEngineWith(db, constants, settings);
  return { model, db, engine };
}

/** A line of a staging batch with the table model's default values (TableModel.addStage). */
export function line(sourceKey: string, lineNo: number, over: Partial<StageInput> = {}): StageInput {
  return { sourceKey, customerId: '42', orderDate: '2024-04-01', amount: '1200.00', currency: 'JPY', lineNo, ...over };
}
