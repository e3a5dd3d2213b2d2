package dev.sluice.client;

import com.hazelcast.core.HazelcastException;

/**
 * The grid could not answer a call that has no local answer (a peek or a reset) within the call
 * timeout, or the circuit breaker is open. Decisions never throw this: they follow the failure
 * policy instead. A {@link HazelcastException}, like the grid's own failures, so that code that
 * maps those (the REST API answers 503) maps this one too.
 */
public class GridUnavailableException extends HazelcastException {
  private static final long serialVersionUID = 1L;

  public GridUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public GridUnavailableException(String message) {
    super(message);
  }
}
