/** Placeholder until its issue lands: the ws-disconnect function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('ws-disconnect: not implemented yet');
};
