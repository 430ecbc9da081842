/** Placeholder until its issue lands: the retention function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('retention: not implemented yet');
};
