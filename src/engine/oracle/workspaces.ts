import { UserError } from '../../errors.js';
import type { Workspaces } from '../contract.js';

/**
 * A bench workspace on Oracle would be another schema (a user), which the loader's user may
 * not create: `bench` refuses here rather than touch the loader's own tables.
 */
export const oracleWorkspaces: Workspaces = {
  createWorkspace(name: string): Promise<void> {
    return Promise.reject(
      new UserError(
        `bench: cannot isolate a workspace (${name}) on Oracle: it would need a schema of its own, which the loader's user cannot create; bench refuses rather than touch the loader's tables`,
      ),
    );
  },
  async dropWorkspace(): Promise<void> {
    // nothing was created: createWorkspace refuses on Oracle
  },
};
