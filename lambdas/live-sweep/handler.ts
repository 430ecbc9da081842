/** Placeholder until its issue lands: the live-sweep function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('live-sweep: not implemented yet');
};
