package dev.sluice.client;

/**
 * Where a {@link SluiceClient} stands with its grid ({@link SluiceClient#gridState()}), also
 * exported as the gauge {@code sluice_client_grid_state{state}}: 1 for the current state, 0 for the
 * others. In every state but {@link #CONNECTED} decisions may be answered by the failure policy.
 */
public enum GridState {
  /** Never reached the grid since it was built: connecting in the background. */
  CONNECTING,
  /** Reached, and the grid answers (or, for a limiter that is not a grid client, always). */
  CONNECTED,
  /**
   * Connected, but no member has answered within two call timeouts: a grid that hangs (a stopped
   * process, a network that drops packets). Decisions pay the timeout once, then the breaker
   * answers by the failure policy.
   */
  UNRESPONSIVE,
  /** The connection was lost; the Hazelcast client reconnects in the background. */
  DISCONNECTED,
  /** Closed. */
  CLOSED;

  /** The name in metrics and health answers: {@code connected}, {@code unresponsive}, ... */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
