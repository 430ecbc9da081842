/** Placeholder until its issue lands: the items function. */
export const handler = async (_event: unknown): Promise<void> => {
  throw new Error('items: not implemented yet');
};
