/** Whether `error` is an import's failure to find the package `name` itself (not one it imports). */
export const isMissingPackage = (error: unknown, name: string): boolean =>
  (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
  String((error as Error).message).includes(`'${name}'`);
