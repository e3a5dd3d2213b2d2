package dev.sluice.core;

/**
 * A policy, rule or request that cannot be honoured, with the field at fault. Every surface maps it
 * to a clear error: HTTP 400, a config error naming file and line, an exception to a Java caller.
 */
public class InvalidPolicyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidPolicyException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The field at fault, e.g. {@code limit}, {@code window}, {@code cost}. */
  public String field() {
    return field;
  }
}
