/** Placeholder until its issue lands: the merge function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('merge: not implemented yet');
};
