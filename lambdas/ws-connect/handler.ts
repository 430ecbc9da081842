/** Placeholder until its issue lands: the ws-connect function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('ws-connect: not implemented yet');
};
