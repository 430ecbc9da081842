/** Placeholder until its issue lands: the snapshot function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('snapshot: not implemented yet');
};
