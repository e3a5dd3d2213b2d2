package dev.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * The limiter's storage cannot answer now: the grid is unreachable, is shutting down, or did not
 * answer in time, or a client's circuit breaker is open. The request was not wrong and may succeed
 * if retried; front ends answer "unavailable" (REST 503, gRPC {@code UNAVAILABLE}). Decisions of a
 * client with a failure policy never throw it: the policy answers instead. The message says why in
 * a reader's words, without class names; the cause, if any, is the storage's own failure.
 */
public class LimiterUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LimiterUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  public LimiterUnavailableException(String message) {
    super(message);
  }
}
