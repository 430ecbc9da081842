/** Placeholder until its issue lands: the fanout function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('fanout: not implemented yet');
};
