package dev.sluice.rest;

/**
 * Whether this node should receive traffic: {@code GET /health/ready} answers 200 when it is, 503
 * when not. A grid node is ready once it has joined the cluster and its partitions are safe (every
 * partition it owns has its backups in place).
 */
@FunctionalInterface
public interface ReadinessProbe {

  Readiness check();

  /** Always ready: for a limiter with nothing to wait for, such as a local one. */
  static ReadinessProbe alwaysReady() {
    return () -> new Readiness(true, "ready");
  }

  /**
   * @param ready whether to route traffic here
   * @param detail why, in a few words (shown in the answer)
   */
  record Readiness(boolean ready, String detail) {}
}
