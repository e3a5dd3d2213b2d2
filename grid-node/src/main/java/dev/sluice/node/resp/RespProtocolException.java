package dev.sluice.node.resp;

/**
 * Input that is not RESP (or too big to be accepted): after it the stream cannot be read in step
 * again, so the connection is answered {@code ERR Protocol error: ...} and closed. Passed from the
 * decoder to the connection's handler as a message, in its place among the commands.
 *
 * @see RespDecoder
 */
final class RespProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  /**
   * @param reason a short label for metrics ({@code malformed}, {@code too_big}, {@code
   *     incomplete})
   * @param message what the client is told after {@code ERR Protocol error: }
   */
  RespProtocolException(String reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  String reason() {
    return reason;
  }

  /** The error reply. */
  String reply() {
    return "ERR Protocol error: " + getMessage();
  }
}
