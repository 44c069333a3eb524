/**
 * `dapl run`'s one extension of PMI-1 (Hydra never sends it): on --timeout, SIGINT or SIGTERM the
 * server sends `cmd=dapl_report_waits` unasked, and each rank answers `cmd=dapl_waits waits=<report>`
 * (`encodeWaitReport`) without expecting a reply, so its own requests stay in order.
 */
export const WAIT_QUERY = 'dapl_report_waits';
export const WAIT_REPORT = 'dapl_waits';
