package dev.sluice.node.resp;

/**
 * A command refused before anything was decided: its reply is this error, e.g. {@code ERR value is
 * not an integer or out of range}. Thrown while a command's arguments are read; never logged.
 */
final class CommandError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param reply the error as the client reads it, starting with its code ({@code ERR}, {@code
   *     WRONGPASS}, {@code NOPERM}, ...)
   */
  CommandError(String reply) {
    super(reply, null, false, false);
  }

  /** The reply, code first. */
  String reply() {
    return getMessage();
  }
}
