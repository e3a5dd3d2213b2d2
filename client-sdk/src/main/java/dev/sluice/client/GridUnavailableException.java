package dev.sluice.client;

/**
 * The grid could not answer a call that has no local answer (a peek or a reset) within the call
 * timeout, or the circuit breaker is open. Decisions never throw this: they follow the failure
 * policy instead.
 */
public class GridUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public GridUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public GridUnavailableException(String message) {
    super(message);
  }
}
