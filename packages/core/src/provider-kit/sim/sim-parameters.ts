/** The parameters every simulated provider declares, beside those of its own model. */
export interface SimParameters {
  /** Nodes one fabric can hold; an IA is a node. */
  readonly maxNodes: number;
  /** Default wall-clock time an active connect may take. */
  readonly connectTimeoutMs: number;
  readonly maxMessageSize: number;
  /** One leg of connection set-up traffic, ns. */
  readonly cmDelayNs: number;
}

/** Parameters an IA may set for itself; all others shape the shared fabric. */
export const PER_IA_PARAMETER_NAMES: readonly string[] = ['connectTimeoutMs', 'maxMessageSize'];
