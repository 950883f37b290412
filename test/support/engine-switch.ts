/**
 * The engines read their switches (ORDER_LOADER_STAGE_COPY, ORDER_LOADER_PROCESS_IN_DATABASE,
 * ORDER_LOADER_STAGE_DIRECT) from the environment when they are made: `open` runs with the switch
 * `name` on (unset) or off ('off'), and the environment is restored afterwards.
 */
export type EngineSwitch = 'ORDER_LOADER_STAGE_COPY' | 'ORDER_LOADER_PROCESS_IN_DATABASE' | 'ORDER_LOADER_STAGE_DIRECT';

export async function withEngineSwitch<T>(name: EngineSwitch, on: boolean, open: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  if (on) Reflect.deleteProperty(process.env, name);
  else process.env[name] = 'off';
  try {
    return await open();
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = before;
  }
}
