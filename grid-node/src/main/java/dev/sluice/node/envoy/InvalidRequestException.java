package dev.sluice.node.envoy;

/**
 * A rate limit request that cannot be answered, refused before anything is counted: the message
 * names the field ({@code descriptors[2].limit.unit: ...}). gRPC answers it as {@code
 * INVALID_ARGUMENT}, {@code POST /json} as 400.
 */
final class InvalidRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InvalidRequestException(String field, String problem) {
    super(field + ": " + problem, null, false, false);
  }
}
