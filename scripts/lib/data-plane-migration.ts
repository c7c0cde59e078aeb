/**
 * `npm run admin -- migrate-data-plane`: calls the operator route that moves one batch of an
 * upgraded deployment's data into the current layout (worker/maintenance/data-plane-migration.ts)
 * until nothing remains. Safe to stop and start again at any point: every batch is idempotent.
 */

export interface MigrationBatchAnswer {
  phases: Record<string, { moved: number; remaining: boolean }>;
  done: boolean;
}

export interface MigrationTotals {
  batches: number;
  moved: Record<string, number>;
}

export async function runDataPlaneMigration(
  batch: () => Promise<MigrationBatchAnswer>,
  onBatch: (answer: MigrationBatchAnswer, n: number) => void = () => undefined,
): Promise<MigrationTotals> {
  const moved: Record<string, number> = {};
  for (let n = 1; ; n++) {
    const answer = await batch();
    onBatch(answer, n);
    let progress = 0;
    for (const [phase, p] of Object.entries(answer.phases)) {
      moved[phase] = (moved[phase] ?? 0) + p.moved;
      progress += p.moved;
    }
    if (answer.done) return { batches: n, moved };
    // Something remains that no batch can move: stop rather than call forever, and say where.
    if (progress === 0) {
      const stuck = Object.entries(answer.phases)
        .filter(([, p]) => p.remaining)
        .map(([phase]) => phase);
      throw new Error(`the migration made no progress in batch ${n}; still in the old layout: ${stuck.join(", ")}`);
    }
  }
}
