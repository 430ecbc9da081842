/** Placeholder until its issue lands: the push function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('push: not implemented yet');
};
