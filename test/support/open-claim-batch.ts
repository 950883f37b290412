import type { ClaimFence, Transactor, StagingTx } from '../../src/engine/contract.js';

/**
 * A staging batch's transaction that has checked its file claim (StagingTx.holdsFileClaim) and
 * stays open until `commit()`: what a new holder of the claim meets if the former holder's claim
 * session ends between a batch's check and its COMMIT.
 */
export async function openClaimBatch(
  engine: Transactor<StagingTx>,
  fence: ClaimFence,
): Promise<{ held: boolean; commit: () => Promise<void> }> {
  let release = () => {};
  const open = new Promise<void>((resolve) => (release = resolve));
  let seen: (held: boolean) => void = () => {};
  const checked = new Promise<boolean>((resolve) => (seen = resolve));
  const batch = engine.transaction(async (tx) => {
    seen(await tx.holdsFileClaim(fence));
    await open;
  });
  const held = await Promise.race([checked, batch.then(() => false)]);
  return {
    held,
    commit: async () => {
      release();
      await batch;
    },
  };
}
