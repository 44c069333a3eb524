/** The providers of this project, by registry key. Only installed packages load. */
export const BUILTIN_PROVIDERS: Readonly<Record<string, string>> = {
  tcp: '@dapl/provider-tcp',
  ib: '@dapl/provider-ib',
  lapi: '@dapl/provider-lapi',
  combuf: '@dapl/provider-combuf',
  shm: '@dapl/provider-shm',
};

/** The `source` of a registry entry from {@link BUILTIN_PROVIDERS}. */
export const BUILTIN_SOURCE = 'built-in';
