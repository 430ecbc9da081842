/** Placeholder until its issue lands: the ws-message function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('ws-message: not implemented yet');
};
