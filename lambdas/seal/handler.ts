/** Placeholder until its issue lands: the seal function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('seal: not implemented yet');
};
