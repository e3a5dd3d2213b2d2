package dev.sluice.core.backend;

/**
 * No answer came before a command's {@link Deadline}: the layer that bounded it (the client's
 * failure policy) answers instead. The command may still be decided where it went.
 */
public final class DeadlineExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DeadlineExceededException(Throwable cause) {
    super("no answer before the deadline", cause);
  }
}
